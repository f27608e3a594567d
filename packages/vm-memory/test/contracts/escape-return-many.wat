;; Returns several values, one of them its own function (a multi-value result is a JS array holding it). The runner
;; must refuse it.
(module
  (import "env" "memory" (memory 1))
  (elem declare func $write)
  (func $write (param $addr i32) (param $value i32)
    (i32.store8 (local.get $addr) (local.get $value)))
  (func (export "leak") (result i32 funcref i64)
    (i32.const 7) (ref.func $write) (i64.const 9))
)
