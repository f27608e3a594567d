// Contract suites for interchangeable Strata backends.
export {};
