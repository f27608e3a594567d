;; Returns an externref it got from the host (the tests hand it the leased Memory, as a host API might hand out a
;; handle): whatever the caller keeps of it reaches the pooled memory after the execution. The runner must refuse it.
(module
  (import "env" "memory" (memory 1))
  (import "env" "handle" (func $handle (result externref)))
  (func (export "leak") (result externref) (call $handle))
)
