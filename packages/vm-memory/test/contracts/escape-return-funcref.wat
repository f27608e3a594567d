;; Returns one of its own functions (the isolation breach of issue 15): called after the execution, it writes into
;; the memory its Instance was given, by then reset and pooled for the next tenant. The runner must refuse it.
(module
  (import "env" "memory" (memory 1))
  (elem declare func $write)
  ;; write(addr, value): one byte into the leased memory.
  (func $write (param $addr i32) (param $value i32)
    (i32.store8 (local.get $addr) (local.get $value)))
  (func (export "leak") (result funcref) (ref.func $write))
)
