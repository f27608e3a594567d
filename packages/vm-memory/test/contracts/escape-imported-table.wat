;; Stores one of its functions into a table the host gave it, by an active element segment (at instantiation, before
;; any export runs): the host reads it from the table after the execution. The runner must refuse the contract.
(module
  (import "env" "memory" (memory 1))
  (import "env" "table" (table 1 funcref))
  (elem (i32.const 0) func $write)
  (func $write (param $addr i32) (param $value i32)
    (i32.store8 (local.get $addr) (local.get $value)))
  (func (export "leak"))
)
