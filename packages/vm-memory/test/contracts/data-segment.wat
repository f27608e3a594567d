;; Imports the pooled memory and carries active data segments: instantiation itself writes into the memory (one
;; segment crosses a page boundary, one sits in the last page of a one-page memory), which the reset must find.
(module
  (import "env" "memory" (memory 1))
  (data (i32.const 4090) "segment across a page boundary")
  (data (i32.const 65500) "segment in the last page")
  (func (export "noop"))
)
