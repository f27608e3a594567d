// Runs a test loop (fuzzing, corruption sweeps) in a child process with a hard deadline, so a hang in the code under
// test fails the test with the input that was in flight instead of stalling the whole run.
import { fork } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

export interface ChildDeadlineJob {
  /** Script the child runs; it reports one message over IPC (`process.send`) and exits. */
  script: string;
  args?: string[];
  /** Node flags for the child, e.g. `typeScriptExecArgv()` from @strata/bench to run a .ts script. */
  execArgv?: string[];
  /** The child is killed (SIGKILL) and the promise rejects after this many milliseconds. */
  killAfterMs: number;
  /** A file the child overwrites with the input it is working on; its content goes into the failure message. */
  progressFile?: string;
  /** Names the child in failure messages, e.g. "fuzz child". */
  label?: string;
}

/** Resolves with the child's last IPC message; rejects on timeout or on exit without a message. */
export function runChildWithDeadline<Report>(job: ChildDeadlineJob): Promise<Report> {
  const label = job.label ?? 'child';
  const inFlight = () =>
    job.progressFile !== undefined && existsSync(job.progressFile)
      ? readFileSync(job.progressFile, 'utf8').trim()
      : '(none)';
  return new Promise((resolve, reject) => {
    const child = fork(job.script, job.args ?? [], {
      execArgv: job.execArgv ?? [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let report: Report | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`${label} did not finish within ${job.killAfterMs} ms (a hang?); input in flight: ${inFlight()}`),
      );
    }, job.killAfterMs);
    child.on('message', (message) => {
      report = message as Report;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (report !== undefined) resolve(report);
      else
        reject(
          new Error(`${label} exited (code ${code}, signal ${signal}) without a report; in flight: ${inFlight()}`),
        );
    });
  });
}
