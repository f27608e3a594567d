#!/usr/bin/env node
// The `strata-state` command: runs the built CLI (turbo builds the package before anything runs it).
import { main } from '../dist/cli/strata-state.js';

process.exitCode = await main(process.argv.slice(2));
