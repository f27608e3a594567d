;; Hands one of its functions to a host function (an import taking a funcref): a host that keeps it can call it after
;; the execution. The runner must refuse the contract.
(module
  (import "env" "memory" (memory 1))
  (import "env" "register" (func $register (param funcref)))
  (elem declare func $write)
  (func $write (param $addr i32) (param $value i32)
    (i32.store8 (local.get $addr) (local.get $value)))
  (func (export "leak") (call $register (ref.func $write)))
)
