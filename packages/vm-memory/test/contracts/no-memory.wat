;; A contract without a memory: the runner still gives it the pool's `env.memory` import.
(module
  (func (export "add") (param i32 i32) (result i32)
    (i32.add (local.get 0) (local.get 1)))
)
