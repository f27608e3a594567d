#!/usr/bin/env node
// The `strata-wasm-build` command: runs the built CLI (turbo builds tools/wasm-build before the packages).
import { main } from '../dist/cli.js';

process.exitCode = await main(process.argv.slice(2));
