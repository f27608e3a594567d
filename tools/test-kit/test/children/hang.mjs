// Child for child-deadline.test.ts: writes what it works on, then never finishes.
import { writeFileSync } from 'node:fs';

writeFileSync(process.argv[2], 'input #42');
setInterval(() => {}, 1000);
