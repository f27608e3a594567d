#!/usr/bin/env node
// The `strata-bench` command: runs the built CLI (turbo builds tools/bench before any package's bench task).
import '../dist/cli.js';
