#!/usr/bin/env node
// The `strata-meta` command: runs the built CLI (turbo builds the package before anything runs it).
import '../dist/cli/strata-meta.js';
