;; The workload contract of the tests and benchmarks. It imports the pooled memory (any size from one page up) and two
;; host functions, and exports the ways a tenant can leave data behind: plain and bulk stores, a store to the last
;; byte, growth, host writes into its memory, a trap and a host exception in the middle of its work. `firstNonZero`
;; and `size` are what the next tenant uses to look for a previous tenant's data.
(module
  (import "env" "memory" (memory 1))
  ;; host_write(addr, len, value): the host writes `len` bytes of `value` at `addr` (like a register or storage read).
  (import "env" "host_write" (func $host_write (param i32 i32 i32)))
  ;; host_fail(code): the host throws.
  (import "env" "host_fail" (func $host_fail (param i32)))

  ;; touch(pages, stride, value): an i64 store of `value` every `stride` bytes over the first `pages` wasm pages.
  ;; stride 4096 dirties every OS page of those wasm pages; a large stride writes sparse pages.
  (func $touch (export "touch") (param $pages i32) (param $stride i32) (param $value i64)
    (local $addr i32) (local $end i32)
    (local.set $end (i32.mul (local.get $pages) (i32.const 65536)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $addr) (local.get $end)))
        (i64.store (local.get $addr) (local.get $value))
        (local.set $addr (i32.add (local.get $addr) (local.get $stride)))
        (br $next))))

  ;; fill(addr, len, value): memory.fill (bulk memory).
  (func (export "fill") (param $addr i32) (param $len i32) (param $value i32)
    (memory.fill (local.get $addr) (local.get $value) (local.get $len)))

  ;; storeByte(addr, value)
  (func (export "storeByte") (param $addr i32) (param $value i32)
    (i32.store8 (local.get $addr) (local.get $value)))

  ;; storeLast(value): the last byte of the memory as it is now (after any growth).
  (func (export "storeLast") (param $value i32)
    (i32.store8
      (i32.sub (i32.mul (memory.size) (i32.const 65536)) (i32.const 1))
      (local.get $value)))

  ;; grow(delta) -> old size in pages, or -1
  (func (export "grow") (param $delta i32) (result i32)
    (memory.grow (local.get $delta)))

  (func (export "size") (result i32) (memory.size))

  ;; hostWrite(addr, len, value): asks the host to write into this memory.
  (func (export "hostWrite") (param $addr i32) (param $len i32) (param $value i32)
    (call $host_write (local.get $addr) (local.get $len) (local.get $value)))

  ;; trapAfter(pages, value): touches pages, then traps (unreachable).
  (func (export "trapAfter") (param $pages i32) (param $value i64)
    (call $touch (local.get $pages) (i32.const 4096) (local.get $value))
    (unreachable))

  ;; hostFailAfter(pages, value): touches pages, then calls a host function that throws.
  (func (export "hostFailAfter") (param $pages i32) (param $value i64)
    (call $touch (local.get $pages) (i32.const 4096) (local.get $value))
    (call $host_fail (i32.const 7)))

  ;; firstNonZero(from, to) -> the first address in [from, to) holding a non-zero byte, or -1. 8 bytes at a time.
  (func (export "firstNonZero") (param $from i32) (param $to i32) (result i32)
    (local $addr i32)
    (local.set $addr (local.get $from))
    (block $done
      (loop $next
        (br_if $done (i32.gt_u (i32.add (local.get $addr) (i32.const 8)) (local.get $to)))
        (if (i64.ne (i64.load (local.get $addr)) (i64.const 0))
          (then (br $done)))
        (local.set $addr (i32.add (local.get $addr) (i32.const 8)))
        (br $next)))
    (block $found
      (loop $byte
        (br_if $found (i32.ge_u (local.get $addr) (local.get $to)))
        (if (i32.ne (i32.load8_u (local.get $addr)) (i32.const 0))
          (then (return (local.get $addr))))
        (local.set $addr (i32.add (local.get $addr) (i32.const 1)))
        (br $byte)))
    (i32.const -1))
)
