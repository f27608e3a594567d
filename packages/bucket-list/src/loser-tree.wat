;; The inner loop of the loser-tree scan in WebAssembly (stellar-core PR #5252, spec §7.1): the k-way merge of the
;; current-live-entries scan over k cursors' read buffers, each a region of one KeyedRecordArena, yielding each key's
;; newest version once and skipping tombstones. src/loser-tree.ts drives it: it opens the readers, builds the tree,
;; refills a cursor's region when the loop asks, shows records to their bucket's page-index check when the loop
;; asks, hands each entry to the caller, and turns statuses into BucketErrors. Compiled to src/loser-tree-wasm.ts by
;; `pnpm build:wasm` (strata-wasm-build); test/wasm-loser-tree.test.ts fails if they drift apart.
;;
;; Why WebAssembly: with the comparator already in wasm, the JavaScript tree spent ~180 ns per record on record marks,
;; reader bookkeeping, the replay and a JS-to-wasm call per comparison; here a record is a mark check, the replay of
;; its path and direct calls of ledger-key's comparator (in the same memory, no copy). Two TTL keys are ordered here
;; without the call: a TTL key is its 32-byte key hash, which orders as its bytes.
;;
;; The module runs in a KeyedRecordArena of @strata/ledger-key: it imports the arena's memory, its in-place
;; comparator, compareKeyedAt(addressA, aIsEntry, addressB, bIsEntry), and its ABI version (an i32 global, so an arena
;; without one fails to link; the driver refuses one whose version is not LOSER_TREE_ARENA_ABI). The buckets are
;; verified (hash-checked, every entry validated when they entered the list), so records are ordered by their keys
;; without validating them again, as the merges do. Marks are still checked: a malformed one is reported, never
;; followed.
;;
;; State lives in memory the driver lays out (addresses in globals) and in globals: the tree and its tie flags (the
;; same arrays the JavaScript tree uses, so the driver can carry on in JavaScript where the loop cannot), and a cursor
;; table of 64 bytes per cursor:
;;    0 at        address of the mark of the cursor's current record (of its next record while it is advanced)
;;    4 end       address after the bytes buffered in its region
;;    8 done      1 once its type range has nothing left to read beyond `end`
;;   12 len       payload length of the current record
;;   16 isEntry   1 when the current record holds a LedgerEntry, 0 for a key record (a DEADENTRY: a tombstone)
;;   20 hasCheck  1 when its records must be shown to its page check (when they cross the limits below or are sampled)
;;   24 shift     the check's sample shift: a record at file offset o is sampled when (o * multiplier) >>> shift is 0
;;                (32 or more: every record)
;;   32 fileBase  f64: file offset of address 0 in this cursor's region (file offset of a record = fileBase + at)
;;   40 quietBefore     f64: records starting at or after it go to the check
;;   48 quietEndBefore  f64: records ending at or after it go to the check
(module
  (import "arena" "memory" (memory 1))
  (import "arena" "compareKeyedAt" (func $compareKeyedAt (param i32 i32 i32 i32) (result i32)))
  (import "arena" "abiVersion" (global i32))

  ;; Layout and rules, set by the driver.
  (global $n (export "n") (mut i32) (i32.const 0))
  (global $cursors (export "cursors") (mut i32) (i32.const 0))
  (global $tree (export "tree") (mut i32) (i32.const 0))
  (global $ties (export "ties") (mut i32) (i32.const 0))
  (global $multiplier (export "multiplier") (mut i32) (i32.const 1))
  (global $keyRecord (export "keyRecord") (mut i32) (i32.const 1))

  ;; Progress, kept between calls: the cursor being advanced (-1: none) and how far (0: its current record is still
  ;; to be stepped over; 1: its next record is to be read at `at`; 2: the path is to be replayed with $candidate, the
  ;; cursor or -1 once it is exhausted), whether the winner repeats the key before it, and the cursor a status is about.
  (global $adv (export "adv") (mut i32) (i32.const -1))
  (global $phase (export "phase") (mut i32) (i32.const 0))
  (global $candidate (export "candidate") (mut i32) (i32.const -1))
  (global $repeated (export "repeated") (mut i32) (i32.const 0))
  (global $cursor (export "cursor") (mut i32) (i32.const -1))

  ;; Runs the merge until the next entry, or until the driver is needed; returns why (STATUS in loser-tree.ts) in
  ;; the low 3 bits and the cursor the status is about above them (`cursor`, -1 for DONE; also left in $cursor):
  ;;   0 ENTRY      the current record of the cursor is the newest version of a new key, and live: the entry
  ;;   1 DONE       every cursor is exhausted
  ;;   2 NEED       the next record of the cursor is not all in its region and its range goes on
  ;;   3 CHECK      the new current record of the cursor goes to its page check first
  ;;   4 BAD_MARK   a malformed record mark at the cursor's `at`
  ;;   5 TRUNCATED  the range of the cursor ends inside the record at its `at`
  ;;   6 BAD_TYPE   the record at the cursor's `at` has a discriminant that is not 0..2
  ;; Progress is saved before returning, so the next call takes up exactly where this one stopped (after a refill,
  ;; a check, or the caller's use of the entry, which stays where it is until then).
  ;;
  ;; One function on purpose: V8 in Node 20 does not inline wasm calls, and the small helpers this loop was first
  ;; written with (field address, big-endian load, record length, page-check test, the replay and the key order
  ;; around the comparator) cost a call each per record. The state lives in locals while the loop runs and goes back
  ;; to the globals on the way out.
  (func (export "step") (result i32)
    (local $status i32) (local $j i32) (local $phase i32) (local $candidate i32) (local $repeated i32)
    (local $n i32) (local $cursors i32) (local $tree i32) (local $ties i32)
    (local $p i32) (local $at i32) (local $end i32) (local $mark i32) (local $len i32) (local $type i32) (local $w i32)
    (local $offset f64) (local $shift i32)
    (local $i i32) (local $node i32) (local $stored i32) (local $order i32) (local $storedAtK i32)
    (local $candidateAtK i32) (local $pa i32) (local $pb i32)
    (local $xa i32) (local $xb i32) (local $ka i32) (local $kb i32) (local $k i32) (local $wa i32) (local $wb i32)
    (local.set $n (global.get $n))
    (local.set $cursors (global.get $cursors))
    (local.set $tree (global.get $tree))
    (local.set $ties (global.get $ties))
    (local.set $j (global.get $adv))
    (local.set $phase (global.get $phase))
    (local.set $candidate (global.get $candidate))
    (local.set $repeated (global.get $repeated))
    (local.set $status
      (block $exit (result i32)
        (loop $next
          (if (i32.ge_s (local.get $j) (i32.const 0))
            (then
              ;; cursor j's fields
              (local.set $p (i32.add (local.get $cursors) (i32.shl (local.get $j) (i32.const 6))))
              (if (i32.eqz (local.get $phase))
                (then
                  (i32.store (local.get $p)
                    (i32.add (i32.load (local.get $p)) (i32.add (i32.load offset=12 (local.get $p)) (i32.const 4))))
                  (local.set $phase (i32.const 1))))
              (if (i32.eq (local.get $phase) (i32.const 1))
                (then
                  ;; The payload length of the record at `at` when [at, end) holds all of it; -1 when it does not
                  ;; (yet); -2 when its mark is malformed (RecordReader's rule: the last-fragment bit, a payload of 1
                  ;; to 2^24 whole words). The mark is big-endian, wasm loads little-endian.
                  (local.set $at (i32.load (local.get $p)))
                  (local.set $end (i32.load offset=4 (local.get $p)))
                  (local.set $len (i32.const -1))
                  (if (i32.ge_u (i32.sub (local.get $end) (local.get $at)) (i32.const 4))
                    (then
                      (local.set $mark (i32.load (local.get $at)))
                      (local.set $mark
                        (i32.or
                          (i32.rotl (i32.and (local.get $mark) (i32.const 0x00ff00ff)) (i32.const 24))
                          (i32.rotl (i32.and (local.get $mark) (i32.const 0xff00ff00)) (i32.const 8))))
                      (local.set $len (i32.and (local.get $mark) (i32.const 0x7fffffff)))
                      (if (i32.or
                            (i32.or (i32.ge_s (local.get $mark) (i32.const 0)) (i32.and (local.get $len) (i32.const 3)))
                            (i32.or (i32.eqz (local.get $len)) (i32.gt_u (local.get $len) (i32.const 0x4000000))))
                        (then (local.set $len (i32.const -2)))
                        (else
                          (if (i32.lt_u
                                (i32.sub (i32.sub (local.get $end) (local.get $at)) (i32.const 4))
                                (local.get $len))
                            (then (local.set $len (i32.const -1))))))))
                  (if (i32.lt_s (local.get $len) (i32.const 0))
                    (then
                      (if (i32.eq (local.get $len) (i32.const -2)) (then (br $exit (i32.const 4))))
                      (if (i32.eqz (i32.load offset=8 (local.get $p))) (then (br $exit (i32.const 2))))
                      ;; The range is over: at its end exactly, or inside a record.
                      (if (i32.ne (local.get $at) (local.get $end)) (then (br $exit (i32.const 5))))
                      (local.set $candidate (i32.const -1)))
                    (else
                      ;; the discriminant, big-endian
                      (local.set $type (i32.load offset=4 (local.get $at)))
                      (local.set $type
                        (i32.or
                          (i32.rotl (i32.and (local.get $type) (i32.const 0x00ff00ff)) (i32.const 24))
                          (i32.rotl (i32.and (local.get $type) (i32.const 0xff00ff00)) (i32.const 8))))
                      (if (i32.gt_u (local.get $type) (i32.const 2)) (then (br $exit (i32.const 6))))
                      (i32.store offset=12 (local.get $p) (local.get $len))
                      (i32.store offset=16 (local.get $p) (i32.ne (local.get $type) (global.get $keyRecord)))
                      (local.set $candidate (local.get $j))))
                  (local.set $phase (i32.const 2))
                  ;; Whether the new record goes to its page check (PageScanCheck.record's fast path, inverted): its
                  ;; file offset reaches the check's limits, or it is sampled.
                  (if (i32.ge_s (local.get $candidate) (i32.const 0))
                    (then
                      (if (i32.load offset=20 (local.get $p))
                        (then
                          (local.set $offset
                            (f64.add (f64.load offset=32 (local.get $p)) (f64.convert_i32_u (local.get $at))))
                          (if (f64.ge (local.get $offset) (f64.load offset=40 (local.get $p)))
                            (then (br $exit (i32.const 3))))
                          (if (f64.ge
                                (f64.add
                                  (local.get $offset)
                                  (f64.convert_i32_u (i32.add (local.get $len) (i32.const 4))))
                                (f64.load offset=48 (local.get $p)))
                            (then (br $exit (i32.const 3))))
                          (local.set $shift (i32.load offset=24 (local.get $p)))
                          (if (i32.ge_u (local.get $shift) (i32.const 32)) (then (br $exit (i32.const 3))))
                          (if (i32.eqz (i32.shr_u
                                (i32.mul (i32.wrap_i64 (i64.trunc_f64_u (local.get $offset))) (global.get $multiplier))
                                (local.get $shift)))
                            (then (br $exit (i32.const 3))))))))))
              ;; Puts the candidate (cursor j or -1) at j's leaf and replays j's path to the root: at each node the
              ;; candidate plays the stored loser (an exhausted cursor orders last and ties nothing; equal keys go to
              ;; the smaller index, the newer bucket), the loser stays, and the node notes whether the two tied. The
              ;; ties j's path noted spare comparisons (as in LoserTree.replaceWinner): a loser tied with j's last
              ;; record has its key K, one not tied a key above K; the candidate is above K until it meets a loser at
              ;; K and carries K on. Only two keys above K are compared. Any tie on the path also means the new
              ;; winner repeats K.
              (local.set $i (i32.add (local.get $n) (local.get $j)))
              (i32.store (i32.add (local.get $tree) (i32.shl (local.get $i) (i32.const 2))) (local.get $candidate))
              (local.set $i (i32.shr_u (local.get $i) (i32.const 1)))
              (local.set $repeated (i32.const 0))
              (local.set $candidateAtK (i32.const 0))
              (block $top
                (loop $up
                  (br_if $top (i32.eqz (local.get $i)))
                  (local.set $node (i32.shl (local.get $i) (i32.const 2)))
                  (local.set $storedAtK (i32.load (i32.add (local.get $ties) (local.get $node))))
                  (local.set $repeated (i32.or (local.get $repeated) (local.get $storedAtK)))
                  (local.set $stored (i32.load (i32.add (local.get $tree) (local.get $node))))
                  (local.set $order
                    (block $decided (result i32)
                      (if (local.get $candidateAtK)
                        (then (br $decided (i32.sub (i32.const 0) (i32.eqz (local.get $storedAtK))))))
                      (if (local.get $storedAtK) (then (br $decided (i32.const 1))))
                      (if (i32.lt_s (local.get $stored) (i32.const 0)) (then (br $decided (i32.const -1))))
                      (if (i32.lt_s (local.get $candidate) (i32.const 0)) (then (br $decided (i32.const 1))))
                      ;; the two records by key (each payload: the discriminant, then the XDR: a LedgerEntry,
                      ;; whose key type follows lastModifiedLedgerSeq, or a LedgerKey)
                      (local.set $pa (i32.add (local.get $cursors) (i32.shl (local.get $candidate) (i32.const 6))))
                      (local.set $pb (i32.add (local.get $cursors) (i32.shl (local.get $stored) (i32.const 6))))
                      (local.set $xa (i32.add (i32.load (local.get $pa)) (i32.const 8)))
                      (local.set $xb (i32.add (i32.load (local.get $pb)) (i32.const 8)))
                      (local.set $ka
                        (i32.add (local.get $xa) (i32.shl (i32.load offset=16 (local.get $pa)) (i32.const 2))))
                      (local.set $kb
                        (i32.add (local.get $xb) (i32.shl (i32.load offset=16 (local.get $pb)) (i32.const 2))))
                      ;; Two TTL keys (type 9, big-endian): a TTL key is its 32-byte key hash, ordered as bytes,
                      ;; so ordered here word by word, without the call.
                      (if (i32.and
                            (i32.eq (i32.load (local.get $ka)) (i32.const 0x09000000))
                            (i32.eq (i32.load (local.get $kb)) (i32.const 0x09000000)))
                        (then
                          (local.set $k (i32.const 4))
                          (loop $words
                            (local.set $wa (i32.load (i32.add (local.get $ka) (local.get $k))))
                            (local.set $wb (i32.load (i32.add (local.get $kb) (local.get $k))))
                            (if (i32.ne (local.get $wa) (local.get $wb))
                              (then
                                (local.set $wa
                                  (i32.or
                                    (i32.rotl (i32.and (local.get $wa) (i32.const 0x00ff00ff)) (i32.const 24))
                                    (i32.rotl (i32.and (local.get $wa) (i32.const 0xff00ff00)) (i32.const 8))))
                                (local.set $wb
                                  (i32.or
                                    (i32.rotl (i32.and (local.get $wb) (i32.const 0x00ff00ff)) (i32.const 24))
                                    (i32.rotl (i32.and (local.get $wb) (i32.const 0xff00ff00)) (i32.const 8))))
                                (br $decided
                                  (select (i32.const -1) (i32.const 1) (i32.lt_u (local.get $wa) (local.get $wb))))))
                            (local.set $k (i32.add (local.get $k) (i32.const 4)))
                            (br_if $words (i32.le_u (local.get $k) (i32.const 32))))
                          (br $decided (i32.const 0))))
                      (call $compareKeyedAt
                        (local.get $xa)
                        (i32.load offset=16 (local.get $pa))
                        (local.get $xb)
                        (i32.load offset=16 (local.get $pb)))))
                  (if (i32.or
                        (i32.gt_s (local.get $order) (i32.const 0))
                        (i32.and (i32.eqz (local.get $order)) (i32.lt_s (local.get $stored) (local.get $candidate))))
                    (then
                      (i32.store (i32.add (local.get $tree) (local.get $node)) (local.get $candidate))
                      (local.set $candidate (local.get $stored))
                      (local.set $candidateAtK (local.get $storedAtK))))
                  (i32.store (i32.add (local.get $ties) (local.get $node)) (i32.eqz (local.get $order)))
                  (local.set $i (i32.shr_u (local.get $i) (i32.const 1)))
                  (br $up)))
              (i32.store (local.get $tree) (local.get $candidate))
              (local.set $j (i32.const -1))))
          (local.set $w (i32.load (local.get $tree)))
          (if (i32.lt_s (local.get $w) (i32.const 0)) (then (br $exit (i32.const 1))))
          ;; The winner is stepped over at the next call (an entry) or now (an older version, or a tombstone).
          (local.set $j (local.get $w))
          (local.set $phase (i32.const 0))
          (if (i32.eqz (local.get $repeated))
            (then
              (if (i32.load offset=16 (i32.add (local.get $cursors) (i32.shl (local.get $w) (i32.const 6))))
                (then (br $exit (i32.const 0))))))
          (br $next))
        (unreachable)))
    (global.set $adv (local.get $j))
    (global.set $phase (local.get $phase))
    (global.set $candidate (local.get $candidate))
    (global.set $repeated (local.get $repeated))
    (global.set $cursor (local.get $j))
    (i32.or (i32.shl (local.get $j) (i32.const 3)) (local.get $status))))
