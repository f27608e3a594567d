#!/usr/bin/env node
// The `strata-meta` command: runs the built CLI (turbo builds the package before anything runs it).
import { main } from '../dist/strata-meta.js';

process.exitCode = await main();
