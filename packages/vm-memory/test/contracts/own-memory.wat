;; A contract that defines (and exports) its own memory with a data segment, as contracts compiled by ordinary
;; toolchains do. The runner rewrites the memory into the pool's `env.memory` import.
(module
  (memory (export "memory") 2 8)
  (data (i32.const 16) "own memory data")
  (func (export "load") (param $addr i32) (result i32)
    (i32.load8_u (local.get $addr)))
  (func (export "store") (param $addr i32) (param $value i32)
    (i32.store8 (local.get $addr) (local.get $value)))
  (func (export "size") (result i32) (memory.size))
)
