// Child for child-deadline.test.ts: reports once and exits.
process.send({ ok: true, argv: process.argv.slice(2) }, () => process.exit(0));
