;; The count-first many-way AND of the slab stepper in WebAssembly: dense terms' parts of one slab as 65,536-bit
;; bitsets (one roaring container's span), the AND of a plan's k bitsets counted without materializing anything, and
;; the values of an AND (or of an OR of ANDs) extracted only when the count says there are some. roaring 2.7.0 ANDs
;; two bitmaps at a time, and an in-place AND of two bitset containers whose result is small converts it to an array
;; container (an allocation and an extraction): a plan of three dense terms that are pairwise overlapping but jointly
;; empty paid that on every slab (measured: 69 % of such a request). Here a 3-term count is 3 × 512 v128 loads.
;; The group proof (src/bitmap/plan-group.ts) runs a program of ORs and ANDs of such bitsets here: the OR of many
;; plans factored by distributivity, tested for emptiness on the slab at once.
;; src/bitmap/slab-bitsets.ts drives it; compiled to src/slab-bitsets-wasm.ts by `pnpm build:wasm`
;; (strata-wasm-build); test/bitmap-slab-bitsets.test.ts fails if they drift apart.
;;
;; Memory (laid out by the driver, which grows it): a staging area where roaring serializes one term's part of the
;; slab in the portable format (a bitmap of at most one container), a slot of 8,192 bytes per term (its bitset), an
;; accumulator slot, and an output area of 65,536 u32 values. Addresses are byte offsets, slots 16-byte aligned.
;;
;; Portable format (RoaringFormatSpec), as far as one container needs it: cookie u32 12346 then a u32 container count,
;; or cookie 12347 in the low 16 bits with count - 1 in the high 16 bits followed by a run-flag byte; per container
;; key u16 and cardinality - 1 u16; a u32 offset per container when the cookie is 12346; then the container: array
;; (cardinality × u16 values), bitset (1,024 u64 words), or run (u16 run count, then start u16 and length - 1 u16 per
;; run). Everything little-endian, as WebAssembly loads are.
(module
  (memory (export "memory") 1)

  ;; Sets bits [a, b] (inclusive, 0 ≤ a ≤ b < 65536) of the bitset at `dst`.
  (func $setRange (param $dst i32) (param $a i32) (param $b i32)
    (local $wa i32) (local $wb i32) (local $ma i64) (local $mb i64) (local $w i32)
    (local.set $wa (i32.shr_u (local.get $a) (i32.const 6)))
    (local.set $wb (i32.shr_u (local.get $b) (i32.const 6)))
    ;; ma = ones from bit (a & 63) up; mb = ones up to bit (b & 63).
    (local.set $ma (i64.shl (i64.const -1) (i64.extend_i32_u (i32.and (local.get $a) (i32.const 63)))))
    (local.set $mb (i64.shr_u (i64.const -1) (i64.extend_i32_u (i32.sub (i32.const 63) (i32.and (local.get $b) (i32.const 63))))))
    (if (i32.eq (local.get $wa) (local.get $wb))
      (then
        (local.set $w (i32.add (local.get $dst) (i32.shl (local.get $wa) (i32.const 3))))
        (i64.store (local.get $w) (i64.or (i64.load (local.get $w)) (i64.and (local.get $ma) (local.get $mb))))
        (return)))
    (local.set $w (i32.add (local.get $dst) (i32.shl (local.get $wa) (i32.const 3))))
    (i64.store (local.get $w) (i64.or (i64.load (local.get $w)) (local.get $ma)))
    (local.set $wa (i32.add (local.get $wa) (i32.const 1)))
    (block $done
      (loop $fill
        (br_if $done (i32.ge_u (local.get $wa) (local.get $wb)))
        (i64.store (i32.add (local.get $dst) (i32.shl (local.get $wa) (i32.const 3))) (i64.const -1))
        (local.set $wa (i32.add (local.get $wa) (i32.const 1)))
        (br $fill)))
    (local.set $w (i32.add (local.get $dst) (i32.shl (local.get $wb) (i32.const 3))))
    (i64.store (local.get $w) (i64.or (i64.load (local.get $w)) (local.get $mb))))

  ;; Loads the portable serialization at `src` (`len` bytes: at most one container) into the bitset at `dst`.
  ;; Returns the container's cardinality (0 for an empty bitmap), or -1 when the bytes are not such a bitmap.
  (func (export "load") (param $src i32) (param $len i32) (param $dst i32) (result i32)
    (local $cookie i32) (local $count i32) (local $card i32) (local $data i32) (local $runs i32) (local $i i32)
    (local $p i32) (local $v i32) (local $isRun i32)
    (memory.fill (local.get $dst) (i32.const 0) (i32.const 8192))
    (if (i32.lt_u (local.get $len) (i32.const 8)) (then (return (i32.const -1))))
    (local.set $cookie (i32.load (local.get $src)))
    (if (i32.eq (local.get $cookie) (i32.const 12346))
      (then
        (local.set $count (i32.load offset=4 (local.get $src)))
        (if (i32.eqz (local.get $count)) (then (return (i32.const 0))))
        (if (i32.ne (local.get $count) (i32.const 1)) (then (return (i32.const -1))))
        (if (i32.lt_u (local.get $len) (i32.const 16)) (then (return (i32.const -1))))
        (local.set $card (i32.add (i32.load16_u offset=10 (local.get $src)) (i32.const 1)))
        (local.set $data (i32.add (local.get $src) (i32.load offset=12 (local.get $src)))))
      (else
        (if (i32.ne (i32.and (local.get $cookie) (i32.const 0xffff)) (i32.const 12347)) (then (return (i32.const -1))))
        (if (i32.ne (i32.shr_u (local.get $cookie) (i32.const 16)) (i32.const 0)) (then (return (i32.const -1))))
        ;; cookie, run-flag byte, key, cardinality - 1; no offsets below 4 containers.
        (local.set $isRun (i32.and (i32.load8_u offset=4 (local.get $src)) (i32.const 1)))
        (local.set $card (i32.add (i32.load16_u offset=7 (local.get $src)) (i32.const 1)))
        (local.set $data (i32.add (local.get $src) (i32.const 9)))))
    (if (local.get $isRun)
      (then
        (local.set $runs (i32.load16_u (local.get $data)))
        (local.set $p (i32.add (local.get $data) (i32.const 2)))
        (if (i32.gt_u (i32.add (i32.sub (local.get $p) (local.get $src)) (i32.shl (local.get $runs) (i32.const 2)))
                      (local.get $len))
          (then (return (i32.const -1))))
        (local.set $card (i32.const 0))
        (block $done
          (loop $each
            (br_if $done (i32.ge_u (local.get $i) (local.get $runs)))
            (local.set $v (i32.load16_u (local.get $p)))
            (if (i32.gt_u (i32.add (local.get $v) (i32.load16_u offset=2 (local.get $p))) (i32.const 0xffff))
              (then (return (i32.const -1))))
            (call $setRange (local.get $dst) (local.get $v) (i32.add (local.get $v) (i32.load16_u offset=2 (local.get $p))))
            (local.set $card (i32.add (local.get $card) (i32.add (i32.load16_u offset=2 (local.get $p)) (i32.const 1))))
            (local.set $p (i32.add (local.get $p) (i32.const 4)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $each)))
        (return (local.get $card))))
    (if (i32.gt_u (local.get $card) (i32.const 4096))
      (then
        (if (i32.gt_u (i32.add (i32.sub (local.get $data) (local.get $src)) (i32.const 8192)) (local.get $len))
          (then (return (i32.const -1))))
        (memory.copy (local.get $dst) (local.get $data) (i32.const 8192))
        (return (local.get $card))))
    (if (i32.gt_u (i32.add (i32.sub (local.get $data) (local.get $src)) (i32.shl (local.get $card) (i32.const 1)))
                  (local.get $len))
      (then (return (i32.const -1))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $card)))
        (local.set $v (i32.load16_u (i32.add (local.get $data) (i32.shl (local.get $i) (i32.const 1)))))
        (local.set $p (i32.add (local.get $dst) (i32.shl (i32.shr_u (local.get $v) (i32.const 6)) (i32.const 3))))
        (i64.store (local.get $p)
          (i64.or (i64.load (local.get $p)) (i64.shl (i64.const 1) (i64.extend_i32_u (i32.and (local.get $v) (i32.const 63))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (local.get $card))

  ;; The AND of 16 bytes of the k ≥ 1 bitsets whose addresses are the u32s at `list`, at byte `at` of each.
  (func $andAt (param $list i32) (param $k i32) (param $at i32) (result v128)
    (local $x v128) (local $j i32)
    (local.set $x (v128.load (i32.add (i32.load (local.get $list)) (local.get $at))))
    (local.set $j (i32.const 1))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $j) (local.get $k)))
        (local.set $x (v128.and (local.get $x)
          (v128.load (i32.add (i32.load (i32.add (local.get $list) (i32.shl (local.get $j) (i32.const 2)))) (local.get $at)))))
        (local.set $j (i32.add (local.get $j) (i32.const 1)))
        (br $each)))
    (local.get $x))

  ;; How many bits the AND of the k ≥ 1 bitsets at `list` holds: one loop per k up to 4 (nearly every plan: at most
  ;; contract, two topics and a count bucket), the general loop beyond. Byte counts are summed pairwise into u16
  ;; lanes: 512 steps of at most 16 per lane, at most 8,192, no overflow.
  (func (export "count") (param $list i32) (param $k i32) (result i32)
    (local $at i32) (local $sum v128) (local $a i32) (local $b i32) (local $c i32) (local $d i32) (local $x v128)
    (local.set $a (i32.load (local.get $list)))
    (local.set $b (i32.load offset=4 (local.get $list)))
    (local.set $c (i32.load offset=8 (local.get $list)))
    (local.set $d (i32.load offset=12 (local.get $list)))
    (block $done
      (if (i32.eq (local.get $k) (i32.const 2))
        (then
          (loop $two
            (local.set $x (v128.and (v128.load (i32.add (local.get $a) (local.get $at)))
                                    (v128.load (i32.add (local.get $b) (local.get $at)))))
            (local.set $sum (i16x8.add (local.get $sum) (i16x8.extadd_pairwise_i8x16_u (i8x16.popcnt (local.get $x)))))
            (local.set $at (i32.add (local.get $at) (i32.const 16)))
            (br_if $two (i32.lt_u (local.get $at) (i32.const 8192))))
          (br $done)))
      (if (i32.eq (local.get $k) (i32.const 3))
        (then
          (loop $three
            (local.set $x (v128.and (v128.and (v128.load (i32.add (local.get $a) (local.get $at)))
                                              (v128.load (i32.add (local.get $b) (local.get $at))))
                                    (v128.load (i32.add (local.get $c) (local.get $at)))))
            (local.set $sum (i16x8.add (local.get $sum) (i16x8.extadd_pairwise_i8x16_u (i8x16.popcnt (local.get $x)))))
            (local.set $at (i32.add (local.get $at) (i32.const 16)))
            (br_if $three (i32.lt_u (local.get $at) (i32.const 8192))))
          (br $done)))
      (if (i32.eq (local.get $k) (i32.const 4))
        (then
          (loop $four
            (local.set $x (v128.and (v128.and (v128.load (i32.add (local.get $a) (local.get $at)))
                                              (v128.load (i32.add (local.get $b) (local.get $at))))
                                    (v128.and (v128.load (i32.add (local.get $c) (local.get $at)))
                                              (v128.load (i32.add (local.get $d) (local.get $at))))))
            (local.set $sum (i16x8.add (local.get $sum) (i16x8.extadd_pairwise_i8x16_u (i8x16.popcnt (local.get $x)))))
            (local.set $at (i32.add (local.get $at) (i32.const 16)))
            (br_if $four (i32.lt_u (local.get $at) (i32.const 8192))))
          (br $done)))
      (loop $any
        (local.set $x (call $andAt (local.get $list) (local.get $k) (local.get $at)))
        (local.set $sum (i16x8.add (local.get $sum) (i16x8.extadd_pairwise_i8x16_u (i8x16.popcnt (local.get $x)))))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br_if $any (i32.lt_u (local.get $at) (i32.const 8192)))))
    (local.set $sum (i32x4.extadd_pairwise_i16x8_u (local.get $sum)))
    (i32.add
      (i32.add (i32x4.extract_lane 0 (local.get $sum)) (i32x4.extract_lane 1 (local.get $sum)))
      (i32.add (i32x4.extract_lane 2 (local.get $sum)) (i32x4.extract_lane 3 (local.get $sum)))))

  ;; ORs the AND of the k ≥ 1 bitsets at `list` into the bitset at `acc`.
  (func (export "orAndInto") (param $list i32) (param $k i32) (param $acc i32)
    (local $at i32)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $at) (i32.const 8192)))
        (v128.store (i32.add (local.get $acc) (local.get $at))
          (v128.or (v128.load (i32.add (local.get $acc) (local.get $at)))
                   (call $andAt (local.get $list) (local.get $k) (local.get $at))))
        (local.set $at (i32.add (local.get $at) (i32.const 16)))
        (br $each))))

  ;; Sets the bits of the `n` u32 values at `values` (each taken modulo 65,536) in the bitset at `acc`.
  (func (export "setBits") (param $values i32) (param $n i32) (param $acc i32)
    (local $i i32) (local $v i32) (local $p i32)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $v (i32.and (i32.load (i32.add (local.get $values) (i32.shl (local.get $i) (i32.const 2)))) (i32.const 0xffff)))
        (local.set $p (i32.add (local.get $acc) (i32.shl (i32.shr_u (local.get $v) (i32.const 6)) (i32.const 3))))
        (i64.store (local.get $p)
          (i64.or (i64.load (local.get $p)) (i64.shl (i64.const 1) (i64.extend_i32_u (i32.and (local.get $v) (i32.const 63))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each))))

  ;; Writes base + i for every set bit i of the bitset at `src` to `out` (u32s, ascending); returns how many.
  (func (export "extract") (param $src i32) (param $base i32) (param $out i32) (result i32)
    (local $w i32) (local $word i64) (local $n i32) (local $bit i32)
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $w) (i32.const 1024)))
        (local.set $word (i64.load (i32.add (local.get $src) (i32.shl (local.get $w) (i32.const 3)))))
        (block $empty
          (loop $bits
            (br_if $empty (i64.eqz (local.get $word)))
            (local.set $bit (i32.wrap_i64 (i64.ctz (local.get $word))))
            (i32.store (i32.add (local.get $out) (i32.shl (local.get $n) (i32.const 2)))
              (i32.add (local.get $base) (i32.add (i32.shl (local.get $w) (i32.const 6)) (local.get $bit))))
            (local.set $n (i32.add (local.get $n) (i32.const 1)))
            (local.set $word (i64.and (local.get $word) (i64.sub (local.get $word) (i64.const 1))))
            (br $bits)))
        (local.set $w (i32.add (local.get $w) (i32.const 1)))
        (br $each)))
    (local.get $n))

  ;; --- the group proof (src/bitmap/plan-group.ts): many plans proved empty on a slab together ---------------------

  ;; Loads one container at `data` into the bitset at `dst`: `kind` 0 array (`card` u16 values), 1 bitset (1,024 u64
  ;; words), 2 run (a u16 run count, then start u16 and length - 1 u16 per run). The driver has checked the container
  ;; lies inside what roaring wrote. Returns its cardinality.
  (func (export "loadContainer") (param $data i32) (param $card i32) (param $kind i32) (param $dst i32) (result i32)
    (local $i i32) (local $p i32) (local $v i32) (local $runs i32)
    (if (i32.eq (local.get $kind) (i32.const 1))
      (then
        (memory.copy (local.get $dst) (local.get $data) (i32.const 8192))
        (return (local.get $card))))
    (memory.fill (local.get $dst) (i32.const 0) (i32.const 8192))
    (if (i32.eq (local.get $kind) (i32.const 2))
      (then
        (local.set $runs (i32.load16_u (local.get $data)))
        (local.set $p (i32.add (local.get $data) (i32.const 2)))
        (local.set $card (i32.const 0))
        (block $done
          (loop $each
            (br_if $done (i32.ge_u (local.get $i) (local.get $runs)))
            (local.set $v (i32.load16_u (local.get $p)))
            ;; A run past the container's end is clipped there (roaring never writes one).
            (call $setRange (local.get $dst) (local.get $v)
              (select (i32.const 0xffff) (i32.add (local.get $v) (i32.load16_u offset=2 (local.get $p)))
                (i32.gt_u (i32.add (local.get $v) (i32.load16_u offset=2 (local.get $p))) (i32.const 0xffff))))
            (local.set $card (i32.add (local.get $card) (i32.add (i32.load16_u offset=2 (local.get $p)) (i32.const 1))))
            (local.set $p (i32.add (local.get $p) (i32.const 4)))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $each)))
        (return (local.get $card))))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $i) (local.get $card)))
        (local.set $v (i32.load16_u (i32.add (local.get $data) (i32.shl (local.get $i) (i32.const 1)))))
        (local.set $p (i32.add (local.get $dst) (i32.shl (i32.shr_u (local.get $v) (i32.const 6)) (i32.const 3))))
        (i64.store (local.get $p)
          (i64.or (i64.load (local.get $p)) (i64.shl (i64.const 1) (i64.extend_i32_u (i32.and (local.get $v) (i32.const 63))))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each)))
    (local.get $card))

  ;; Runs a group program: the ops from `prog` to `end` (u32 words, addresses resolved by the driver), each a pass over
  ;; whole bitsets, 32 bytes a step. Ops:
  ;;   0 dst keep k src × k   dst = (keep ? dst : ∅) ∪ the k ≥ 1 sources (four per pass, a short group repeating
  ;;                          its first: OR is idempotent)
  ;;   1 a b dst keep         dst = (keep ? dst : ∅) ∪ (a ∩ b)
  ;; (Measured on the bench's 256 dense pairs: passes of eight sources, and the whole program run 512 bytes at a time
  ;; so that every operand's tile stays in L1, were both slower; the passes are not bound by memory.)
  (func (export "runProgram") (param $prog i32) (param $end i32)
    (local $pc i32) (local $at i32) (local $dst i32) (local $keep i32) (local $k i32) (local $j i32) (local $list i32)
    (local $a i32) (local $b i32) (local $c i32) (local $d i32)
    (local.set $pc (local.get $prog))
    (block $opsDone
      (loop $ops
        (br_if $opsDone (i32.ge_u (local.get $pc) (local.get $end)))
        (if (i32.eq (i32.load (local.get $pc)) (i32.const 1))
          (then
            (local.set $a (i32.load offset=4 (local.get $pc)))
            (local.set $b (i32.load offset=8 (local.get $pc)))
            (local.set $dst (i32.load offset=12 (local.get $pc)))
            (local.set $at (i32.const 0))
            (if (i32.load offset=16 (local.get $pc))
              (then
                (loop $keepLanes
                  (v128.store (i32.add (local.get $dst) (local.get $at))
                    (v128.or (v128.load (i32.add (local.get $dst) (local.get $at)))
                             (v128.and (v128.load (i32.add (local.get $a) (local.get $at)))
                                       (v128.load (i32.add (local.get $b) (local.get $at))))))
                  (v128.store offset=16 (i32.add (local.get $dst) (local.get $at))
                    (v128.or (v128.load offset=16 (i32.add (local.get $dst) (local.get $at)))
                             (v128.and (v128.load offset=16 (i32.add (local.get $a) (local.get $at)))
                                       (v128.load offset=16 (i32.add (local.get $b) (local.get $at))))))
                  (local.set $at (i32.add (local.get $at) (i32.const 32)))
                  (br_if $keepLanes (i32.lt_u (local.get $at) (i32.const 8192)))))
              (else
                (loop $lanes
                  (v128.store (i32.add (local.get $dst) (local.get $at))
                    (v128.and (v128.load (i32.add (local.get $a) (local.get $at)))
                              (v128.load (i32.add (local.get $b) (local.get $at)))))
                  (v128.store offset=16 (i32.add (local.get $dst) (local.get $at))
                    (v128.and (v128.load offset=16 (i32.add (local.get $a) (local.get $at)))
                              (v128.load offset=16 (i32.add (local.get $b) (local.get $at)))))
                  (local.set $at (i32.add (local.get $at) (i32.const 32)))
                  (br_if $lanes (i32.lt_u (local.get $at) (i32.const 8192))))))
            (local.set $pc (i32.add (local.get $pc) (i32.const 20))))
          (else
            (local.set $dst (i32.load offset=4 (local.get $pc)))
            (local.set $keep (i32.load offset=8 (local.get $pc)))
            (local.set $k (i32.load offset=12 (local.get $pc)))
            (local.set $list (i32.add (local.get $pc) (i32.const 16)))
            (local.set $j (i32.const 0))
            (block $groupsDone
              (loop $groups
                (br_if $groupsDone (i32.ge_u (local.get $j) (local.get $k)))
                (local.set $a (i32.load (i32.add (local.get $list) (i32.shl (local.get $j) (i32.const 2)))))
                (local.set $b (select (i32.load offset=4 (i32.add (local.get $list) (i32.shl (local.get $j) (i32.const 2))))
                  (local.get $a) (i32.lt_u (i32.add (local.get $j) (i32.const 1)) (local.get $k))))
                (local.set $c (select (i32.load offset=8 (i32.add (local.get $list) (i32.shl (local.get $j) (i32.const 2))))
                  (local.get $a) (i32.lt_u (i32.add (local.get $j) (i32.const 2)) (local.get $k))))
                (local.set $d (select (i32.load offset=12 (i32.add (local.get $list) (i32.shl (local.get $j) (i32.const 2))))
                  (local.get $a) (i32.lt_u (i32.add (local.get $j) (i32.const 3)) (local.get $k))))
                (local.set $at (i32.const 0))
                (if (local.get $keep)
                  (then
                    (loop $keepLanes
                      (v128.store (i32.add (local.get $dst) (local.get $at))
                        (v128.or
                          (v128.or (v128.load (i32.add (local.get $dst) (local.get $at)))
                                   (v128.load (i32.add (local.get $a) (local.get $at))))
                          (v128.or (v128.load (i32.add (local.get $b) (local.get $at)))
                                   (v128.or (v128.load (i32.add (local.get $c) (local.get $at)))
                                            (v128.load (i32.add (local.get $d) (local.get $at)))))))
                      (v128.store offset=16 (i32.add (local.get $dst) (local.get $at))
                        (v128.or
                          (v128.or (v128.load offset=16 (i32.add (local.get $dst) (local.get $at)))
                                   (v128.load offset=16 (i32.add (local.get $a) (local.get $at))))
                          (v128.or (v128.load offset=16 (i32.add (local.get $b) (local.get $at)))
                                   (v128.or (v128.load offset=16 (i32.add (local.get $c) (local.get $at)))
                                            (v128.load offset=16 (i32.add (local.get $d) (local.get $at)))))))
                      (local.set $at (i32.add (local.get $at) (i32.const 32)))
                      (br_if $keepLanes (i32.lt_u (local.get $at) (i32.const 8192)))))
                  (else
                    (loop $lanes
                      (v128.store (i32.add (local.get $dst) (local.get $at))
                        (v128.or
                          (v128.or (v128.load (i32.add (local.get $a) (local.get $at)))
                                   (v128.load (i32.add (local.get $b) (local.get $at))))
                          (v128.or (v128.load (i32.add (local.get $c) (local.get $at)))
                                   (v128.load (i32.add (local.get $d) (local.get $at))))))
                      (v128.store offset=16 (i32.add (local.get $dst) (local.get $at))
                        (v128.or
                          (v128.or (v128.load offset=16 (i32.add (local.get $a) (local.get $at)))
                                   (v128.load offset=16 (i32.add (local.get $b) (local.get $at))))
                          (v128.or (v128.load offset=16 (i32.add (local.get $c) (local.get $at)))
                                   (v128.load offset=16 (i32.add (local.get $d) (local.get $at))))))
                      (local.set $at (i32.add (local.get $at) (i32.const 32)))
                      (br_if $lanes (i32.lt_u (local.get $at) (i32.const 8192))))))
                (local.set $keep (i32.const 1))
                (local.set $j (i32.add (local.get $j) (i32.const 4)))
                (br $groups)))
            (local.set $pc (i32.add (local.get $list) (i32.shl (local.get $k) (i32.const 2))))))
        (br $ops))))

  ;; 1 when the bitset at `src` has a bit in [a, b] (0 ≤ a ≤ b < 65,536), else 0; stops at the first such word.
  (func (export "anyInRange") (param $src i32) (param $a i32) (param $b i32) (result i32)
    (local $w i32) (local $wb i32) (local $word i64)
    (local.set $w (i32.shr_u (local.get $a) (i32.const 6)))
    (local.set $wb (i32.shr_u (local.get $b) (i32.const 6)))
    ;; The first word without the bits below a, the last without those above b (one word: both).
    (local.set $word (i64.and (i64.load (i32.add (local.get $src) (i32.shl (local.get $w) (i32.const 3))))
      (i64.shl (i64.const -1) (i64.extend_i32_u (i32.and (local.get $a) (i32.const 63))))))
    (if (i32.eq (local.get $w) (local.get $wb))
      (then
        (return (i64.ne (i64.and (local.get $word)
          (i64.shr_u (i64.const -1) (i64.extend_i32_u (i32.sub (i32.const 63) (i32.and (local.get $b) (i32.const 63))))))
          (i64.const 0)))))
    (if (i64.ne (local.get $word) (i64.const 0)) (then (return (i32.const 1))))
    (local.set $w (i32.add (local.get $w) (i32.const 1)))
    (block $done
      (loop $each
        (br_if $done (i32.ge_u (local.get $w) (local.get $wb)))
        (if (i64.ne (i64.load (i32.add (local.get $src) (i32.shl (local.get $w) (i32.const 3)))) (i64.const 0))
          (then (return (i32.const 1))))
        (local.set $w (i32.add (local.get $w) (i32.const 1)))
        (br $each)))
    (i64.ne (i64.and (i64.load (i32.add (local.get $src) (i32.shl (local.get $wb) (i32.const 3))))
      (i64.shr_u (i64.const -1) (i64.extend_i32_u (i32.sub (i32.const 63) (i32.and (local.get $b) (i32.const 63))))))
      (i64.const 0)))

  ;; Clears the bitset at `dst`.
  (func (export "clear") (param $dst i32)
    (memory.fill (local.get $dst) (i32.const 0) (i32.const 8192)))
)
