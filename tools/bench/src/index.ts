// Strata's benchmark harness. Bench files call `runBench` and use the session to time a subject against a
// baseline in the same process; `strata-bench run` collects results into bench-results/<package>.json.
export { typeScriptExecArgv } from './child-process.js';
export { renderReport, renderSection } from './report.js';
export type { BaselineFigure, BenchResult, BenchResultsFile, RunEnvironment, Target } from './results.js';
export { judgeTarget, RESULTS_SCHEMA_VERSION, resultsFileName, runEnvironment } from './results.js';
export type { PeakRssJob, PeakRssReport } from './rss.js';
export { measureIdleRss, measurePeakRss } from './rss.js';
export type { CompareOptions, Subject } from './session.js';
export { BenchSession, formatResult, quickMode, runBench, summarize } from './session.js';
