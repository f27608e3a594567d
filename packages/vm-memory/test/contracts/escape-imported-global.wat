;; Sets a mutable funcref global the host gave it to one of its functions: the host reads the global after the
;; execution. The runner must refuse the contract.
(module
  (import "env" "memory" (memory 1))
  (import "env" "slot" (global $slot (mut funcref)))
  (elem declare func $write)
  (func $write (param $addr i32) (param $value i32)
    (i32.store8 (local.get $addr) (local.get $value)))
  (func (export "leak") (global.set $slot (ref.func $write)))
)
