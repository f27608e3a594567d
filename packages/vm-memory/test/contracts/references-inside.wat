;; Uses references without letting any out, so the runner accepts it: a table of its own functions and
;; call_indirect, an immutable externref global and an externref the host returns, an export taking an externref,
;; and exported memory, table and globals (the runner never hands out an Instance's exports).
(module
  (import "env" "memory" (memory 1))
  (import "env" "handle" (func $handle (result externref)))
  (import "env" "config" (global $config externref))
  (table $own (export "table") 2 funcref)
  (global $kept (export "kept") (mut externref) (ref.null extern))
  (global (export "answer") i32 (i32.const 42))
  (export "memory" (memory 0))
  (elem (table $own) (i32.const 0) func $one $two)
  (type $number (func (result i32)))
  (func $one (result i32) (i32.const 1))
  (func $two (result i32) (i32.const 2))
  ;; pick(index) -> 1 or 2, through the table
  (func (export "pick") (param $index i32) (result i32)
    (call_indirect $own (type $number) (local.get $index)))
  ;; isNull(ref) -> 1 when the caller passed null; keeps the handle and the config inside
  (func (export "isNull") (param $ref externref) (result i32)
    (global.set $kept (call $handle))
    (global.set $kept (global.get $config))
    (ref.is_null (local.get $ref)))
)
