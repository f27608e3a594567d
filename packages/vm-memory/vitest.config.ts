import { strataProject } from '../../vitest.shared.ts';

// After the other projects, alone: its page-table self-tests fail beside other suites' load.
export default strataProject('vm-memory', { alone: true });
