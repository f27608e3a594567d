#!/usr/bin/env node
// The `strata-gen` command: runs the built CLI (turbo builds the package before anything runs it).
import { main } from '../dist/strata-gen.js';

process.exitCode = await main();
