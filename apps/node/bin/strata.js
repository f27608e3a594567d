#!/usr/bin/env node
// The `strata` command: runs the built CLI (turbo builds the package before anything runs it).
import { main } from '../dist/cli.js';

process.exitCode = await main();
