import { strataProject } from '../../vitest.shared.ts';

export default strataProject('node');
