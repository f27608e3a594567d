// What strata-gen and strata-meta add to @strata/cli-kit: `--version` from this package's own package.json, and
// usage errors as LedgerMetaError INVALID_ARGUMENT (the error class of everything the tools report). The rest of
// their frame (CliIo, run, option parsers, describeError, progress) is @strata/cli-kit's, imported from there.
import {
  type CliIo,
  packageManifest as manifestAbove,
  newProgram as newCliProgram,
  type PackageManifest,
  usageErrorFactory,
} from '@strata/cli-kit';
import { LedgerMetaError } from '@strata/ledger-meta';
import type { Command } from 'commander';

/** The tools' output streams (cli-kit's), under the name the tests import it by. */
export type { CliIo } from '@strata/cli-kit';

/** The name and version of this package (@strata/ledger-meta-cli), from the package.json above src and dist. */
export function packageManifest(): PackageManifest {
  return manifestAbove(import.meta.url);
}

/** A bad option or argument found by a command after parsing: INVALID_ARGUMENT naming the option as `field`. */
export const usageError = usageErrorFactory(LedgerMetaError);

/** cli-kit's program (throws instead of exiting, output to `io`), whose `--version` is this package's. */
export function newProgram(name: string, description: string, io: CliIo): Command {
  const manifest = packageManifest();
  return newCliProgram(name, description, io, { version: manifest.version, packageName: manifest.name });
}
