;; The inner loop of a file merge in WebAssembly: stellar-core's mergeInternal over two buffers of record-marked bucket
;; entries, writing the merged records into an output window. src/merge/wasm-merge-loop.ts drives it (refills the
;; inputs, drains the output, turns statuses into BucketErrors) and builds its rules from the kind's KindOps, so the
;; case table, which records are tombstones and what a key-only record is are still decided in one place
;; (src/kind.ts). Compiled to src/merge-loop-wasm.ts by `pnpm build:wasm` (strata-wasm-build);
;; test/wasm-merge-loop.test.ts fails if they drift apart.
;;
;; Why WebAssembly: in JavaScript a merge spent ~240 ns per record on the main thread (record marks and key prefixes
;; read byte by byte, the comparator called across the JS/wasm boundary, a run bookkeeping step per record); here a
;; record is a mark check, one call of ledger-key's comparator (in the same memory, no copy) and a memory.copy.
;;
;; The module runs in a KeyedRecordArena of @strata/ledger-key: it imports the arena's memory, its in-place
;; comparator, compareKeyedAt(addressA, aIsEntry, addressB, bIsEntry), and its ABI version (an i32 global, so an arena
;; without one fails to link; the driver refuses one whose version is not MERGE_LOOP_ARENA_ABI). Both inputs come from verified buckets
;; (hash-checked, every entry validated when they entered the list), so records are ordered by their keys without
;; validating them again, as the JavaScript merge does. Marks are still checked: a malformed one is reported, never
;; followed.
;;
;; State between calls lives in exported globals, read and written by the driver: A is the older input, B the newer;
;; for each the address of its next record mark, the end of the bytes read so far, and `done` once nothing follows
;; in the file. Records go to [out, outEnd); `records` counts them.
(module
  (import "arena" "memory" (memory 1))
  (import "arena" "compareKeyedAt" (func $compareKeyedAt (param i32 i32 i32 i32) (result i32)))
  (import "arena" "abiVersion" (global i32))

  (global $a (export "a") (mut i32) (i32.const 0))
  (global $aEnd (export "aEnd") (mut i32) (i32.const 0))
  (global $aDone (export "aDone") (mut i32) (i32.const 0))
  (global $b (export "b") (mut i32) (i32.const 0))
  (global $bEnd (export "bEnd") (mut i32) (i32.const 0))
  (global $bDone (export "bDone") (mut i32) (i32.const 0))
  (global $out (export "out") (mut i32) (i32.const 0))
  (global $outEnd (export "outEnd") (mut i32) (i32.const 0))
  (global $records (export "records") (mut i32) (i32.const 0))

  ;; The rules. `cases`: for two records of one key, 4 bits at (olderType * 4 + newerType) * 4 give the type to write
  ;; the newer record with (0..2), ANNIHILATED (4: nothing written) or CONFLICT (5). `drop`: bit t set when records
  ;; of type t are not written (bit 4 always: annihilated pairs; the tombstone type in merges into the bottom level).
  ;; `keyRecord`: the discriminant of records that hold a LedgerKey instead of a LedgerEntry.
  (global $cases (export "cases") (mut i64) (i64.const 0))
  (global $drop (export "drop") (mut i32) (i32.const 16))
  (global $keyRecord (export "keyRecord") (mut i32) (i32.const 1))

  ;; The big-endian word at p (wasm loads are little-endian).
  (func $be (param $p i32) (result i32)
    (local $x i32)
    (local.set $x (i32.load (local.get $p)))
    (i32.or
      (i32.rotl (i32.and (local.get $x) (i32.const 0x00ff00ff)) (i32.const 24))
      (i32.rotl (i32.and (local.get $x) (i32.const 0xff00ff00)) (i32.const 8))))

  ;; The payload length of the record whose mark is at p, when [p, end) holds all of it; -1 when it does not (yet);
  ;; -2 when the mark is malformed (RecordReader's rule: the last-fragment bit, a payload of 1 to 2^24 whole words).
  (func $recordLength (param $p i32) (param $end i32) (result i32)
    (local $mark i32) (local $len i32)
    (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 4)) (then (return (i32.const -1))))
    (local.set $mark (call $be (local.get $p)))
    (local.set $len (i32.and (local.get $mark) (i32.const 0x7fffffff)))
    (if (i32.or
          (i32.or (i32.ge_s (local.get $mark) (i32.const 0)) (i32.and (local.get $len) (i32.const 3)))
          (i32.or (i32.eqz (local.get $len)) (i32.gt_u (local.get $len) (i32.const 0x4000000))))
      (then (return (i32.const -2))))
    (if (i32.lt_u (i32.sub (i32.sub (local.get $end) (local.get $p)) (i32.const 4)) (local.get $len))
      (then (return (i32.const -1))))
    (local.get $len))

  ;; Merges until an input needs bytes, the output window is full, something is wrong or both inputs are exhausted;
  ;; returns why (the driver's STATUS table in wasm-merge-loop.ts):
  ;;   0 / 1  NEED_A / NEED_B        that input's next record is not all in memory and its file goes on
  ;;   2      OUT_FULL               the next record to write does not fit in [out, outEnd)
  ;;   3      DONE                   both inputs are exhausted
  ;;   4 / 5  BAD_MARK_A / _B        a malformed record mark at a / b
  ;;   6 / 7  TRUNCATED_A / _B       the file ends inside the record at a / b
  ;;   8      CONFLICT               the records at a and b have one key and the case table forbids the pair
  ;;   9 / 10 BAD_TYPE_A / _B        a record at a / b whose discriminant is not 0..2
  ;; Positions are saved before returning and only move past records that are finished with, so after a refill or a
  ;; drain the next call takes up exactly where this one stopped.
  (func (export "step") (result i32)
    (local $a i32) (local $b i32) (local $out i32) (local $status i32)
    (local $lenA i32) (local $lenB i32) (local $typeA i32) (local $typeB i32)
    (local $order i32) (local $p i32) (local $len i32) (local $type i32)
    (local.set $a (global.get $a))
    (local.set $b (global.get $b))
    (local.set $out (global.get $out))
    (local.set $status
      (block $exit (result i32)
        (loop $next
          ;; Each input's next record: its length, or -1 once the input is exhausted.
          (local.set $lenA (call $recordLength (local.get $a) (global.get $aEnd)))
          (if (i32.lt_s (local.get $lenA) (i32.const 0))
            (then
              (if (i32.eq (local.get $lenA) (i32.const -2)) (then (br $exit (i32.const 4))))
              (if (i32.eqz (global.get $aDone)) (then (br $exit (i32.const 0))))
              (if (i32.ne (local.get $a) (global.get $aEnd)) (then (br $exit (i32.const 6)))))
            (else
              (local.set $typeA (call $be (i32.add (local.get $a) (i32.const 4))))
              (if (i32.gt_u (local.get $typeA) (i32.const 2)) (then (br $exit (i32.const 9))))))
          (local.set $lenB (call $recordLength (local.get $b) (global.get $bEnd)))
          (if (i32.lt_s (local.get $lenB) (i32.const 0))
            (then
              (if (i32.eq (local.get $lenB) (i32.const -2)) (then (br $exit (i32.const 5))))
              (if (i32.eqz (global.get $bDone)) (then (br $exit (i32.const 1))))
              (if (i32.ne (local.get $b) (global.get $bEnd)) (then (br $exit (i32.const 7)))))
            (else
              (local.set $typeB (call $be (i32.add (local.get $b) (i32.const 4))))
              (if (i32.gt_u (local.get $typeB) (i32.const 2)) (then (br $exit (i32.const 10))))))

          ;; The order of the newer record against the older one; an exhausted input orders after everything.
          (if (i32.lt_s (local.get $lenA) (i32.const 0))
            (then
              (if (i32.lt_s (local.get $lenB) (i32.const 0)) (then (br $exit (i32.const 3))))
              (local.set $order (i32.const -1)))
            (else
              (if (i32.lt_s (local.get $lenB) (i32.const 0))
                (then (local.set $order (i32.const 1)))
                (else
                  ;; Each payload: the discriminant, then a LedgerEntry or (key records) a LedgerKey.
                  (local.set $order (call $compareKeyedAt
                    (i32.add (local.get $b) (i32.const 8))
                    (i32.ne (local.get $typeB) (global.get $keyRecord))
                    (i32.add (local.get $a) (i32.const 8))
                    (i32.ne (local.get $typeA) (global.get $keyRecord))))))))

          ;; The record to write: the newer one when it orders first or the keys are equal (with the case table's
          ;; type), else the older one.
          (if (i32.gt_s (local.get $order) (i32.const 0))
            (then
              (local.set $p (local.get $a))
              (local.set $len (local.get $lenA))
              (local.set $type (local.get $typeA)))
            (else
              (local.set $p (local.get $b))
              (local.set $len (local.get $lenB))
              (local.set $type (local.get $typeB))
              (if (i32.eqz (local.get $order))
                (then
                  (local.set $type (i32.and
                    (i32.wrap_i64 (i64.shr_u
                      (global.get $cases)
                      (i64.extend_i32_u (i32.shl
                        (i32.add (i32.shl (local.get $typeA) (i32.const 2)) (local.get $typeB))
                        (i32.const 2)))))
                    (i32.const 15)))
                  (if (i32.eq (local.get $type) (i32.const 5)) (then (br $exit (i32.const 8))))))))
          (if (i32.eqz (i32.and (i32.shr_u (global.get $drop) (local.get $type)) (i32.const 1)))
            (then
              (if (i32.lt_u (i32.sub (global.get $outEnd) (local.get $out)) (i32.add (local.get $len) (i32.const 4)))
                (then (br $exit (i32.const 2))))
              (memory.copy (local.get $out) (local.get $p) (i32.add (local.get $len) (i32.const 4)))
              ;; The discriminant as written (a type 0..2 is its own big-endian word's low byte).
              (i32.store offset=4 (local.get $out) (i32.shl (local.get $type) (i32.const 24)))
              (local.set $out (i32.add (local.get $out) (i32.add (local.get $len) (i32.const 4))))
              (global.set $records (i32.add (global.get $records) (i32.const 1)))))

          ;; Move past what was used: the older record unless the newer ordered first, the newer unless the older did.
          (if (i32.ge_s (local.get $order) (i32.const 0))
            (then (local.set $a (i32.add (local.get $a) (i32.add (local.get $lenA) (i32.const 4))))))
          (if (i32.le_s (local.get $order) (i32.const 0))
            (then (local.set $b (i32.add (local.get $b) (i32.add (local.get $lenB) (i32.const 4))))))
          (br $next))
        (unreachable)))
    (global.set $a (local.get $a))
    (global.set $b (local.get $b))
    (global.set $out (local.get $out))
    (local.get $status)))
