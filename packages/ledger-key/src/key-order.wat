;; compareLedgerKeys in WebAssembly text: validate two XDR LedgerKeys whole, then order them exactly as stellar-core's
;; LedgerEntryIdCmp (spec §2). The fast path of src/wasm-key-comparator.ts; src/compare.ts keeps the JavaScript
;; lockstep walker, which stays the one source of every error (code, offset, field). Compiled to src/key-order-wasm.ts
;; by `pnpm build:wasm` (strata-wasm-build).
;;
;; Why WebAssembly: validating a CONTRACT_DATA key is a walk over many tiny SCVal nodes, and in JavaScript each node
;; costs bounds checks, calls and table reads that TurboFan cannot fold away; here a node is a handful of
;; instructions and equal runs are compared eight bytes at a time.
;;
;; Contract with the caller: write key A at KEY_A and key B at KEY_B (at most KEY_CAPACITY bytes each) and call
;; compare(lenA, lenB). The result is -1, 0 or 1 when both keys are valid, or MALFORMED (2) when either is not; the
;; caller then reruns the JavaScript comparator on the same bytes to throw the exact LedgerKeyError. The accepted set
;; must equal the JavaScript validator's exactly (test/wasm-key-comparator.property.test.ts checks it on random keys
;; and on random byte mutations of them); which error and where is deliberately not this module's business.
;;
;; Design: two passes. First each key is validated alone ($skipKey returns the offset after the key, or -1; callers
;; keep the invariant p <= end, so `end - p` never wraps and every bounds check is one unsigned compare). Then the
;; keys are compared without checks ($cmpKey). Validated XDR is canonical, so two values that compare equal are
;; byte-identical and have the same length: after an equal child both sides advance by the same amount, and after
;; an unequal one the answer is known and nothing more needs reading. SCVals are walked iteratively with an explicit
;; stack (a call per node cost more than most nodes); nesting is bounded by MAX_SCVAL_DEPTH (128) as in JavaScript.
;; Positions are absolute addresses; KEY_A and KEY_B are 8-aligned and every XDR field starts at a multiple of 4
;; from its key's start, so word loads line up with XDR words.
;;
;; Memory: the first page is the module's: lookup tables at 0..127 (data segments below); the SCVal walkers' stack at
;; 128..1151 (two words per nesting level 1..127: validation uses the first, the comparator both); key A at 2048 and
;; key B at 33792, 31744 bytes each. `compare` needs nothing else. An instance used through `compareKeyedAt` (a
;; KeyedRecordArena, src/keyed-record-arena.ts) is grown by its caller, who keeps validated records above the first
;; page and has them ordered where they lie; what a module running in such an arena may rely on (this layout and
;; compareKeyedAt's signature and semantics) is KEYED_RECORD_ARENA_ABI_VERSION there: change either, bump it.
(module
  (memory (export "memory") 1)
  (global (export "KEY_A") i32 (i32.const 2048))
  (global (export "KEY_B") i32 (i32.const 33792))
  (global (export "KEY_CAPACITY") i32 (i32.const 31744))

  ;; Where the last value that compared equal ended on each side: set by $cmpVarOpaque, $cmpScAddress and
  ;; $cmpScVal when they return 0, so that the caller can go on with the next field.
  (global $endA (mut i32) (i32.const 0))
  (global $endB (mut i32) (i32.const 0))

  ;; SCVal arms whose payload is plain fixed-size bytes (any bit pattern valid), by SCValType: the size, or 0xff
  ;; (-1) for arms with discriminants, bools, lengths or children. Same table as SCVAL_FIXED_PAYLOAD in scval.ts.
  (data (i32.const 0)
    "\ff\00\ff\04\04\08\08\08\08\10\10\20\20\ff\ff\ff\ff\ff\ff\ff\00\08")
  ;; 1 for the fixed-size arms that are two's complement (I32, I64, I128, I256, LEDGER_KEY_NONCE), by SCValType.
  (data (i32.const 32)
    "\00\00\00\00\01\00\01\00\00\00\01\00\01\00\00\00\00\00\00\00\00\01")
  ;; SCAddress payload size by SCAddressType: ACCOUNT 36, CONTRACT 32, MUXED_ACCOUNT 40, CLAIMABLE_BALANCE 36,
  ;; LIQUIDITY_POOL 32.
  (data (i32.const 64) "\24\20\28\24\20")
  ;; The comparator's view of the first table: BOOL (4) and ERROR (8) also order like their validated bytes.
  (data (i32.const 96)
    "\04\00\08\04\04\08\08\08\08\10\10\20\20\ff\ff\ff\ff\ff\ff\ff\00\08")

  ;; ---- validation: each returns the offset after the value, or -1 -----------------------------------------------
  ;;
  ;; Reading XDR words: wasm loads are little-endian and there is no byte-swap instruction. An enum or discriminant
  ;; with a small bound is read as `rotl(load(p), 8)`: that is the big-endian value when its top three bytes are
  ;; zero, and at least 256 otherwise, so one unsigned compare against the bound checks both. Lengths and counts
  ;; need the full swap, written out in place (a call per word cost more than the word).

  ;; AccountID / ClaimableBalanceID: discriminant 0, then 32 bytes.
  (func $skipZeroTypedHash (param $p i32) (param $end i32) (result i32)
    (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 36)) (then (return (i32.const -1))))
    (if (i32.load (local.get $p)) (then (return (i32.const -1))))
    (i32.add (local.get $p) (i32.const 36)))

  ;; SCAddress: type 0..4, a fixed-size payload; ACCOUNT and CLAIMABLE_BALANCE carry a discriminant that must be 0.
  (func $skipScAddress (param $p i32) (param $end i32) (result i32)
    (local $type i32) (local $size i32)
    (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 4)) (then (return (i32.const -1))))
    (local.set $type (i32.rotl (i32.load (local.get $p)) (i32.const 8)))
    (if (i32.gt_u (local.get $type) (i32.const 4)) (then (return (i32.const -1))))
    (local.set $size (i32.load8_u offset=64 (local.get $type)))
    (if (i32.lt_u (i32.sub (i32.sub (local.get $end) (local.get $p)) (i32.const 4)) (local.get $size))
      (then (return (i32.const -1))))
    (if (i32.and
          (i32.or (i32.eqz (local.get $type)) (i32.eq (local.get $type) (i32.const 3)))
          (i32.ne (i32.load offset=4 (local.get $p)) (i32.const 0)))
      (then (return (i32.const -1))))
    (i32.add (i32.add (local.get $p) (i32.const 4)) (local.get $size)))

  ;; opaque<max> / string<max>: length within max and the buffer, then zero padding to a multiple of 4.
  (func $skipVarOpaque (param $p i32) (param $end i32) (param $max i32) (result i32)
    (local $len i32) (local $padStart i32) (local $next i32)
    (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 4)) (then (return (i32.const -1))))
    (local.set $len (i32.load (local.get $p)))
    (local.set $len (i32.or
      (i32.rotl (i32.and (local.get $len) (i32.const 0x00ff00ff)) (i32.const 24))
      (i32.rotl (i32.and (local.get $len) (i32.const 0xff00ff00)) (i32.const 8))))
    (if (i32.gt_u (local.get $len) (local.get $max)) (then (return (i32.const -1))))
    (if (i32.gt_u (local.get $len) (i32.sub (i32.sub (local.get $end) (local.get $p)) (i32.const 4)))
      (then (return (i32.const -1))))
    (local.set $padStart (i32.add (i32.add (local.get $p) (i32.const 4)) (local.get $len)))
    (local.set $next (i32.and (i32.add (local.get $padStart) (i32.const 3)) (i32.const -4)))
    (if (i32.gt_u (local.get $next) (local.get $end)) (then (return (i32.const -1))))
    ;; The padding is the last (next - padStart) bytes of the word before next: the high bytes of a little-endian
    ;; load, so shifting out the content bytes leaves exactly the padding.
    (if (i32.ne (local.get $next) (local.get $padStart))
      (then
        (if (i32.shr_u
              (i32.load (i32.sub (local.get $next) (i32.const 4)))
              (i32.shl (i32.sub (i32.const 4) (i32.sub (local.get $next) (local.get $padStart))) (i32.const 3)))
          (then (return (i32.const -1))))))
    (local.get $next))

  ;; One SCVal at p, the outermost at nesting level 1: all 22 arms, nesting bounded by MAX_SCVAL_DEPTH (128).
  ;; Iterative, not recursive: a call per node cost more than most nodes. $left is the number of values still to
  ;; read at the current level, counting the one being read; entering a container pushes it (VALIDATION_STACK, one
  ;; word per level) and the children become the level's values.
  (func $skipScVal (param $p i32) (param $end i32) (result i32)
    (local $left i32) (local $depth i32) (local $type i32) (local $x i32) (local $len i32) (local $next i32)
    (local.set $left (i32.const 1))
    (local.set $depth (i32.const 1))
    (loop $value
      (block $leafDone
        (block $container ;; $x children (> 0) at depth + 1
          (block $optionalSeq ;; SCVec* / SCMap* at p, $x values per element (1 or 2)
            (block $instance
              (block $address
                (block $vecMap
                  (block $opaque
                    (block $error
                      (block $bool
                        (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 4))
                          (then (return (i32.const -1))))
                        (local.set $type (i32.rotl (i32.load (local.get $p)) (i32.const 8)))
                        (if (i32.gt_u (local.get $type) (i32.const 21)) (then (return (i32.const -1))))
                        (local.set $p (i32.add (local.get $p) (i32.const 4)))
                        ;; Plain fixed-size payloads (integers, VOID, LEDGER_KEY_CONTRACT_INSTANCE): any bytes.
                        (local.set $x (i32.load8_s (local.get $type)))
                        (if (i32.ge_s (local.get $x) (i32.const 0))
                          (then
                            (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (local.get $x))
                              (then (return (i32.const -1))))
                            (local.set $p (i32.add (local.get $p) (local.get $x)))
                            (br $leafDone)))
                        ;; 0 BOOL, 2 ERROR, 13 BYTES, 14 STRING, 15 SYMBOL, 16 VEC, 17 MAP, 18 ADDRESS, 19 INSTANCE
                        ;; (the other arms are fixed-size, handled above).
                        (br_table $bool $bool $error $bool $bool $bool $bool $bool $bool $bool $bool $bool $bool
                          $opaque $opaque $opaque $vecMap $vecMap $address $instance
                          (local.get $type)))
                      ;; BOOL: 0 or 1.
                      (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 4))
                        (then (return (i32.const -1))))
                      (if (i32.gt_u (i32.rotl (i32.load (local.get $p)) (i32.const 8)) (i32.const 1))
                        (then (return (i32.const -1))))
                      (local.set $p (i32.add (local.get $p) (i32.const 4)))
                      (br $leafDone))
                    ;; ERROR: SCErrorType 0..9; CONTRACT (0) then any uint32, the others an SCErrorCode 0..9.
                    (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 8))
                      (then (return (i32.const -1))))
                    (local.set $x (i32.rotl (i32.load (local.get $p)) (i32.const 8)))
                    (if (i32.gt_u (local.get $x) (i32.const 9)) (then (return (i32.const -1))))
                    (if (i32.and
                          (i32.ne (local.get $x) (i32.const 0))
                          (i32.gt_u (i32.rotl (i32.load offset=4 (local.get $p)) (i32.const 8)) (i32.const 9)))
                      (then (return (i32.const -1))))
                    (local.set $p (i32.add (local.get $p) (i32.const 8)))
                    (br $leafDone))
                  ;; BYTES, STRING (unbounded), SYMBOL (15: string<32>): length within the bound and the buffer,
                  ;; then zero padding to a multiple of 4.
                  (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 4))
                    (then (return (i32.const -1))))
                  (local.set $len (i32.load (local.get $p)))
                  (local.set $len (i32.or
                    (i32.rotl (i32.and (local.get $len) (i32.const 0x00ff00ff)) (i32.const 24))
                    (i32.rotl (i32.and (local.get $len) (i32.const 0xff00ff00)) (i32.const 8))))
                  (if (i32.and (i32.eq (local.get $type) (i32.const 15)) (i32.gt_u (local.get $len) (i32.const 32)))
                    (then (return (i32.const -1))))
                  (if (i32.gt_u (local.get $len) (i32.sub (i32.sub (local.get $end) (local.get $p)) (i32.const 4)))
                    (then (return (i32.const -1))))
                  (local.set $x (i32.add (i32.add (local.get $p) (i32.const 4)) (local.get $len)))
                  (local.set $next (i32.and (i32.add (local.get $x) (i32.const 3)) (i32.const -4)))
                  (if (i32.gt_u (local.get $next) (local.get $end)) (then (return (i32.const -1))))
                  ;; The padding is the last (next - x) bytes of the word before next: the high bytes of a
                  ;; little-endian load, so shifting out the content bytes leaves exactly the padding.
                  (if (i32.ne (local.get $next) (local.get $x))
                    (then
                      (if (i32.shr_u
                            (i32.load (i32.sub (local.get $next) (i32.const 4)))
                            (i32.shl (i32.sub (i32.const 4) (i32.sub (local.get $next) (local.get $x))) (i32.const 3)))
                        (then (return (i32.const -1))))))
                  (local.set $p (local.get $next))
                  (br $leafDone))
                ;; VEC (16): one value per element; MAP (17): two (key, val).
                (local.set $x (i32.sub (local.get $type) (i32.const 15)))
                (br $optionalSeq))
              ;; ADDRESS
              (local.set $p (call $skipScAddress (local.get $p) (local.get $end)))
              (br_if $leafDone (i32.ge_s (local.get $p) (i32.const 0)))
              (return (i32.const -1)))
            ;; CONTRACT_INSTANCE: executable type 0..1 (WASM carries a 32-byte hash), then the storage (an SCMap*).
            (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 4)) (then (return (i32.const -1))))
            (local.set $x (i32.rotl (i32.load (local.get $p)) (i32.const 8)))
            (if (i32.gt_u (local.get $x) (i32.const 1)) (then (return (i32.const -1))))
            (local.set $p (i32.add (local.get $p) (i32.const 4)))
            (if (i32.eqz (local.get $x))
              (then
                (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 32)) (then (return (i32.const -1))))
                (local.set $p (i32.add (local.get $p) (i32.const 32)))))
            (local.set $x (i32.const 2)))
          ;; SCVec* / SCMap*: a 0/1 presence flag, then a count that must fit the bytes left (at least 4 bytes per
          ;; value: count * 4 * x > left without overflow is count > left >> (x + 1)), then the values.
          (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 4)) (then (return (i32.const -1))))
          (local.set $len (i32.rotl (i32.load (local.get $p)) (i32.const 8)))
          (if (i32.gt_u (local.get $len) (i32.const 1)) (then (return (i32.const -1))))
          (if (i32.eqz (local.get $len))
            (then
              (local.set $p (i32.add (local.get $p) (i32.const 4)))
              (br $leafDone)))
          (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 8)) (then (return (i32.const -1))))
          (local.set $len (i32.load offset=4 (local.get $p)))
          (local.set $len (i32.or
            (i32.rotl (i32.and (local.get $len) (i32.const 0x00ff00ff)) (i32.const 24))
            (i32.rotl (i32.and (local.get $len) (i32.const 0xff00ff00)) (i32.const 8))))
          (if (i32.gt_u
                (local.get $len)
                (i32.shr_u
                  (i32.sub (i32.sub (local.get $end) (local.get $p)) (i32.const 8))
                  (i32.add (local.get $x) (i32.const 1))))
            (then (return (i32.const -1))))
          (local.set $p (i32.add (local.get $p) (i32.const 8)))
          (local.set $x (i32.mul (local.get $len) (local.get $x)))
          (br_if $leafDone (i32.eqz (local.get $x))))
        ;; A container with $x values: they are at depth + 1, which must not pass MAX_SCVAL_DEPTH.
        (if (i32.ge_u (local.get $depth) (i32.const 128)) (then (return (i32.const -1))))
        (i32.store offset=128 (i32.shl (local.get $depth) (i32.const 3)) (local.get $left))
        (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
        (local.set $left (local.get $x))
        (br $value))
      ;; A value ended at p: read the next one at this level, or close the levels that are complete.
      (loop $close
        (local.set $left (i32.sub (local.get $left) (i32.const 1)))
        (br_if $value (local.get $left))
        (if (i32.eq (local.get $depth) (i32.const 1)) (then (return (local.get $p))))
        (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
        (local.set $left (i32.load offset=128 (i32.shl (local.get $depth) (i32.const 3))))
        (br $close)))
    (unreachable))

  ;; TrustLineAsset at p: NATIVE, ALPHANUM4 {code[4], issuer}, ALPHANUM12 {code[12], issuer}, POOL_SHARE PoolID.
  (func $skipTrustLineAsset (param $p i32) (param $end i32) (result i32)
    (local $type i32)
    (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 4)) (then (return (i32.const -1))))
    (local.set $type (i32.rotl (i32.load (local.get $p)) (i32.const 8)))
    (if (i32.gt_u (local.get $type) (i32.const 3)) (then (return (i32.const -1))))
    (if (i32.eqz (local.get $type)) (then (return (i32.add (local.get $p) (i32.const 4)))))
    (if (i32.eq (local.get $type) (i32.const 3))
      (then
        (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 36)) (then (return (i32.const -1))))
        (return (i32.add (local.get $p) (i32.const 36)))))
    ;; ALPHANUM4 (1) has a 4-byte code, ALPHANUM12 (2) a 12-byte one; both end with the issuer.
    (local.set $p (i32.add
      (local.get $p)
      (select (i32.const 8) (i32.const 16) (i32.eq (local.get $type) (i32.const 1)))))
    (if (i32.gt_u (local.get $p) (local.get $end)) (then (return (i32.const -1))))
    (call $skipZeroTypedHash (local.get $p) (local.get $end)))

  ;; One LedgerKey at p (type, then its arm); returns the offset after it or -1.
  (func $skipKey (param $p i32) (param $end i32) (result i32)
    (local $type i32) (local $q i32)
    (if (i32.lt_u (i32.sub (local.get $end) (local.get $p)) (i32.const 4)) (then (return (i32.const -1))))
    (local.set $type (i32.rotl (i32.load (local.get $p)) (i32.const 8)))
    (if (i32.gt_u (local.get $type) (i32.const 9)) (then (return (i32.const -1))))
    (local.set $q (i32.add (local.get $p) (i32.const 4)))
    (block $config
      (block $contractData
        (block $hash
          (block $data
            (block $offer
              (block $trustLine
                (block $accountLike
                  ;; 0 ACCOUNT, 1 TRUSTLINE, 2 OFFER, 3 DATA, 4 CLAIMABLE_BALANCE, 5 LIQUIDITY_POOL, 6 CONTRACT_DATA,
                  ;; 7 CONTRACT_CODE, 8 CONFIG_SETTING, 9 TTL.
                  (br_table $accountLike $trustLine $offer $data $accountLike $hash $contractData $hash $config $hash
                    (local.get $type)))
                (return (call $skipZeroTypedHash (local.get $q) (local.get $end))))
              (local.set $q (call $skipZeroTypedHash (local.get $q) (local.get $end)))
              (if (i32.lt_s (local.get $q) (i32.const 0)) (then (return (i32.const -1))))
              (return (call $skipTrustLineAsset (local.get $q) (local.get $end))))
            ;; OFFER: sellerID, int64 offerID.
            (local.set $q (call $skipZeroTypedHash (local.get $q) (local.get $end)))
            (if (i32.lt_s (local.get $q) (i32.const 0)) (then (return (i32.const -1))))
            (if (i32.lt_u (i32.sub (local.get $end) (local.get $q)) (i32.const 8)) (then (return (i32.const -1))))
            (return (i32.add (local.get $q) (i32.const 8))))
          ;; DATA: accountID, string64 dataName.
          (local.set $q (call $skipZeroTypedHash (local.get $q) (local.get $end)))
          (if (i32.lt_s (local.get $q) (i32.const 0)) (then (return (i32.const -1))))
          (return (call $skipVarOpaque (local.get $q) (local.get $end) (i32.const 64))))
        ;; LIQUIDITY_POOL, CONTRACT_CODE, TTL: one 32-byte hash.
        (if (i32.lt_u (i32.sub (local.get $end) (local.get $q)) (i32.const 32)) (then (return (i32.const -1))))
        (return (i32.add (local.get $q) (i32.const 32))))
      ;; CONTRACT_DATA: contract, key (SCVal at level 1), durability 0..1.
      (local.set $q (call $skipScAddress (local.get $q) (local.get $end)))
      (if (i32.lt_s (local.get $q) (i32.const 0)) (then (return (i32.const -1))))
      (local.set $q (call $skipScVal (local.get $q) (local.get $end)))
      (if (i32.lt_s (local.get $q) (i32.const 0)) (then (return (i32.const -1))))
      (if (i32.lt_u (i32.sub (local.get $end) (local.get $q)) (i32.const 4)) (then (return (i32.const -1))))
      (if (i32.gt_u (i32.rotl (i32.load (local.get $q)) (i32.const 8)) (i32.const 1)) (then (return (i32.const -1))))
      (return (i32.add (local.get $q) (i32.const 4))))
    ;; CONFIG_SETTING: ConfigSettingID 0..20.
    (if (i32.lt_u (i32.sub (local.get $end) (local.get $q)) (i32.const 4)) (then (return (i32.const -1))))
    (if (i32.gt_u (i32.rotl (i32.load (local.get $q)) (i32.const 8)) (i32.const 20)) (then (return (i32.const -1))))
    (i32.add (local.get $q) (i32.const 4)))

  ;; ---- comparison of validated values: each returns -1, 0 or 1 --------------------------------------------------
  ;;
  ;; Equal words are found with raw loads; only the one decisive word per comparison is byte-swapped. Enum words of
  ;; validated values are small, so `rotl(load(p), 8)` is their value.

  ;; Order of two unsigned 32-bit values.
  (func $order (param $x i32) (param $y i32) (result i32)
    (i32.sub (i32.gt_u (local.get $x) (local.get $y)) (i32.lt_u (local.get $x) (local.get $y))))

  ;; Order of two big-endian words given as little-endian loads.
  (func $orderWords (param $x i32) (param $y i32) (result i32)
    (call $order
      (i32.or
        (i32.rotl (i32.and (local.get $x) (i32.const 0x00ff00ff)) (i32.const 24))
        (i32.rotl (i32.and (local.get $x) (i32.const 0xff00ff00)) (i32.const 8)))
      (i32.or
        (i32.rotl (i32.and (local.get $y) (i32.const 0x00ff00ff)) (i32.const 24))
        (i32.rotl (i32.and (local.get $y) (i32.const 0xff00ff00)) (i32.const 8)))))

  ;; Unsigned lexicographic order of n bytes (n a multiple of 4), eight at a time. On a differing word the first
  ;; differing byte is the lowest set byte of the XOR (little-endian loads), and that byte decides.
  (func $cmpBytes (param $pa i32) (param $pb i32) (param $n i32) (result i32)
    (local $x i64) (local $y i64) (local $shift i64) (local $i i32)
    (block $tail
      (loop $words
        (br_if $tail (i32.lt_u (i32.sub (local.get $n) (local.get $i)) (i32.const 8)))
        (local.set $x (i64.load (i32.add (local.get $pa) (local.get $i))))
        (local.set $y (i64.load (i32.add (local.get $pb) (local.get $i))))
        (if (i64.ne (local.get $x) (local.get $y))
          (then
            (local.set $shift (i64.and (i64.ctz (i64.xor (local.get $x) (local.get $y))) (i64.const 56)))
            (return (call $order
              (i32.wrap_i64 (i64.and (i64.shr_u (local.get $x) (local.get $shift)) (i64.const 0xff)))
              (i32.wrap_i64 (i64.and (i64.shr_u (local.get $y) (local.get $shift)) (i64.const 0xff)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $words)))
    (if (i32.ne (local.get $i) (local.get $n))
      (then
        (return (call $orderWords
          (i32.load (i32.add (local.get $pa) (local.get $i)))
          (i32.load (i32.add (local.get $pb) (local.get $i)))))))
    (i32.const 0))

  ;; A two's-complement integer of n bytes (4, 8, 16 or 32): the top word signed (flipping the sign bit of the
  ;; swapped word turns a signed compare into an unsigned one), the rest unsigned.
  (func $cmpSigned (param $pa i32) (param $pb i32) (param $n i32) (result i32)
    (local $x i32) (local $y i32)
    (local.set $x (i32.load (local.get $pa)))
    (local.set $y (i32.load (local.get $pb)))
    (if (i32.ne (local.get $x) (local.get $y))
      (then (return (call $orderWords
        (i32.xor (local.get $x) (i32.const 0x80))
        (i32.xor (local.get $y) (i32.const 0x80))))))
    (call $cmpBytes
      (i32.add (local.get $pa) (i32.const 4))
      (i32.add (local.get $pb) (i32.const 4))
      (i32.sub (local.get $n) (i32.const 4))))

  ;; opaque / string: content unsigned with the shorter prefix first; the length only breaks a tie. Comparing whole
  ;; words over the shorter content is exact because padding is zero (validated).
  (func $cmpVarOpaque (param $pa i32) (param $pb i32) (result i32)
    (local $lenA i32) (local $lenB i32) (local $c i32)
    (local.set $lenA (i32.load (local.get $pa)))
    (if (i32.eq (local.get $lenA) (i32.load (local.get $pb)))
      (then
        (local.set $lenA (i32.or
          (i32.rotl (i32.and (local.get $lenA) (i32.const 0x00ff00ff)) (i32.const 24))
          (i32.rotl (i32.and (local.get $lenA) (i32.const 0xff00ff00)) (i32.const 8))))
        (local.set $lenB (i32.and (i32.add (local.get $lenA) (i32.const 3)) (i32.const -4)))
        (local.set $c (call $cmpBytes
          (i32.add (local.get $pa) (i32.const 4)) (i32.add (local.get $pb) (i32.const 4)) (local.get $lenB)))
        (global.set $endA (i32.add (i32.add (local.get $pa) (i32.const 4)) (local.get $lenB)))
        (global.set $endB (i32.add (i32.add (local.get $pb) (i32.const 4)) (local.get $lenB)))
        (return (local.get $c))))
    ;; Different lengths: the shorter content's words first, then the shorter value.
    (local.set $lenA (i32.load (local.get $pa)))
    (local.set $lenA (i32.or
      (i32.rotl (i32.and (local.get $lenA) (i32.const 0x00ff00ff)) (i32.const 24))
      (i32.rotl (i32.and (local.get $lenA) (i32.const 0xff00ff00)) (i32.const 8))))
    (local.set $lenB (i32.load (local.get $pb)))
    (local.set $lenB (i32.or
      (i32.rotl (i32.and (local.get $lenB) (i32.const 0x00ff00ff)) (i32.const 24))
      (i32.rotl (i32.and (local.get $lenB) (i32.const 0xff00ff00)) (i32.const 8))))
    (local.set $c (call $cmpBytes
      (i32.add (local.get $pa) (i32.const 4))
      (i32.add (local.get $pb) (i32.const 4))
      (i32.and
        (i32.add
          (select (local.get $lenA) (local.get $lenB) (i32.lt_u (local.get $lenA) (local.get $lenB)))
          (i32.const 3))
        (i32.const -4))))
    (if (local.get $c) (then (return (local.get $c))))
    (call $order (local.get $lenA) (local.get $lenB)))

  ;; SCAddress: type, then the fixed-size payload, whose validated bytes order like the value (MUXED_ACCOUNT's
  ;; uint64 id comes first and is unsigned).
  (func $cmpScAddress (param $pa i32) (param $pb i32) (result i32)
    (local $x i32) (local $y i32) (local $size i32)
    (local.set $x (i32.load (local.get $pa)))
    (local.set $y (i32.load (local.get $pb)))
    (if (i32.ne (local.get $x) (local.get $y))
      (then (return (call $order (i32.rotl (local.get $x) (i32.const 8)) (i32.rotl (local.get $y) (i32.const 8))))))
    (local.set $size (i32.load8_u offset=64 (i32.rotl (local.get $x) (i32.const 8))))
    (global.set $endA (i32.add (i32.add (local.get $pa) (i32.const 4)) (local.get $size)))
    (global.set $endB (i32.add (i32.add (local.get $pb) (i32.const 4)) (local.get $size)))
    (call $cmpBytes (i32.add (local.get $pa) (i32.const 4)) (i32.add (local.get $pb) (i32.const 4)) (local.get $size)))

  ;; SCVal (spec §2.4): type, then the arm; the outermost value at pa / pb. Iterative like $skipScVal: entering a
  ;; container whose common elements are to be compared pushes the level's $left and the order of the two counts
  ;; (COMPARE_STACK, two words per level), which decides once all common elements compared equal.
  (func $cmpScVal (param $pa i32) (param $pb i32) (result i32)
    (local $left i32) (local $depth i32) (local $x i32) (local $y i32) (local $type i32) (local $c i32)
    (local.set $left (i32.const 1))
    (local.set $depth (i32.const 1))
    (loop $value
      (block $leafDone
        (block $container ;; $x common values (> 0), $y the order of the two counts
          (block $optionalSeq ;; SCVec* / SCMap* at pa / pb, $x values per element (1 or 2)
            (block $instance
              (block $address
                (block $vecMap
                  (block $opaque
                    (local.set $x (i32.load (local.get $pa)))
                    (local.set $y (i32.load (local.get $pb)))
                    (if (i32.ne (local.get $x) (local.get $y))
                      (then (return (call $order
                        (i32.rotl (local.get $x) (i32.const 8)) (i32.rotl (local.get $y) (i32.const 8))))))
                    (local.set $type (i32.rotl (local.get $x) (i32.const 8)))
                    (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
                    (local.set $pb (i32.add (local.get $pb) (i32.const 4)))
                    ;; Fixed-size payloads that order like their bytes once validated (BOOL and ERROR too), or
                    ;; two's complement (the top word signed).
                    (local.set $x (i32.load8_s offset=96 (local.get $type)))
                    (if (i32.ge_s (local.get $x) (i32.const 0))
                      (then
                        (local.set $c
                          (if (result i32) (i32.load8_u offset=32 (local.get $type))
                            (then (call $cmpSigned (local.get $pa) (local.get $pb) (local.get $x)))
                            (else (call $cmpBytes (local.get $pa) (local.get $pb) (local.get $x)))))
                        (if (local.get $c) (then (return (local.get $c))))
                        (local.set $pa (i32.add (local.get $pa) (local.get $x)))
                        (local.set $pb (i32.add (local.get $pb) (local.get $x)))
                        (br $leafDone)))
                    ;; 13 BYTES, 14 STRING, 15 SYMBOL, 16 VEC, 17 MAP, 18 ADDRESS, 19 CONTRACT_INSTANCE.
                    (br_table $opaque $opaque $opaque $vecMap $vecMap $address $instance
                      (i32.sub (local.get $type) (i32.const 13))))
                  (local.set $c (call $cmpVarOpaque (local.get $pa) (local.get $pb)))
                  (if (local.get $c) (then (return (local.get $c))))
                  (local.set $pa (global.get $endA))
                  (local.set $pb (global.get $endB))
                  (br $leafDone))
                ;; VEC (16): one value per element; MAP (17): two (key, val).
                (local.set $x (i32.sub (local.get $type) (i32.const 15)))
                (br $optionalSeq))
              ;; ADDRESS: type, then the fixed-size payload, ordered like its bytes.
              (local.set $x (i32.load (local.get $pa)))
              (local.set $y (i32.load (local.get $pb)))
              (if (i32.ne (local.get $x) (local.get $y))
                (then (return (call $order
                  (i32.rotl (local.get $x) (i32.const 8)) (i32.rotl (local.get $y) (i32.const 8))))))
              (local.set $x (i32.add (i32.load8_u offset=64 (i32.rotl (local.get $x) (i32.const 8))) (i32.const 4)))
              (local.set $c (call $cmpBytes
                (i32.add (local.get $pa) (i32.const 4))
                (i32.add (local.get $pb) (i32.const 4))
                (i32.sub (local.get $x) (i32.const 4))))
              (if (local.get $c) (then (return (local.get $c))))
              (local.set $pa (i32.add (local.get $pa) (local.get $x)))
              (local.set $pb (i32.add (local.get $pb) (local.get $x)))
              (br $leafDone))
            ;; CONTRACT_INSTANCE: executable type (WASM 0 < STELLAR_ASSET 1), WASM's hash, then the storage map.
            (local.set $x (i32.load (local.get $pa)))
            (local.set $y (i32.load (local.get $pb)))
            (if (i32.ne (local.get $x) (local.get $y))
              (then (return (call $order
                (i32.rotl (local.get $x) (i32.const 8)) (i32.rotl (local.get $y) (i32.const 8))))))
            (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
            (local.set $pb (i32.add (local.get $pb) (i32.const 4)))
            (if (i32.eqz (local.get $x))
              (then
                (local.set $c (call $cmpBytes (local.get $pa) (local.get $pb) (i32.const 32)))
                (if (local.get $c) (then (return (local.get $c))))
                (local.set $pa (i32.add (local.get $pa) (i32.const 32)))
                (local.set $pb (i32.add (local.get $pb) (i32.const 32)))))
            (local.set $x (i32.const 2)))
          ;; SCVec* / SCMap*: absent before present; then the common elements (a map entry is its key then its
          ;; value), then the shorter sequence first.
          (local.set $c (i32.load (local.get $pa)))
          (local.set $y (i32.load (local.get $pb)))
          (if (i32.ne (local.get $c) (local.get $y))
            (then (return (call $order
              (i32.rotl (local.get $c) (i32.const 8)) (i32.rotl (local.get $y) (i32.const 8))))))
          (if (i32.eqz (local.get $c))
            (then
              (local.set $pa (i32.add (local.get $pa) (i32.const 4)))
              (local.set $pb (i32.add (local.get $pb) (i32.const 4)))
              (br $leafDone)))
          (local.set $c (i32.load offset=4 (local.get $pa)))
          (local.set $c (i32.or
            (i32.rotl (i32.and (local.get $c) (i32.const 0x00ff00ff)) (i32.const 24))
            (i32.rotl (i32.and (local.get $c) (i32.const 0xff00ff00)) (i32.const 8))))
          (local.set $y (i32.load offset=4 (local.get $pb)))
          (local.set $y (i32.or
            (i32.rotl (i32.and (local.get $y) (i32.const 0x00ff00ff)) (i32.const 24))
            (i32.rotl (i32.and (local.get $y) (i32.const 0xff00ff00)) (i32.const 8))))
          (local.set $x (i32.mul
            (select (local.get $c) (local.get $y) (i32.lt_u (local.get $c) (local.get $y)))
            (local.get $x)))
          (local.set $y (i32.sub (i32.gt_u (local.get $c) (local.get $y)) (i32.lt_u (local.get $c) (local.get $y))))
          (local.set $pa (i32.add (local.get $pa) (i32.const 8)))
          (local.set $pb (i32.add (local.get $pb) (i32.const 8)))
          (if (i32.eqz (local.get $x))
            (then
              (if (local.get $y) (then (return (local.get $y))))
              (br $leafDone))))
        ;; Compare the container's $x common values at the next level.
        (i32.store offset=128 (i32.shl (local.get $depth) (i32.const 3)) (local.get $left))
        (i32.store offset=132 (i32.shl (local.get $depth) (i32.const 3)) (local.get $y))
        (local.set $depth (i32.add (local.get $depth) (i32.const 1)))
        (local.set $left (local.get $x))
        (br $value))
      ;; A value compared equal: compare the next one at this level, or close the levels that are complete (a
      ;; container whose common elements were all equal is ordered by its count; equal counts mean equal values).
      (loop $close
        (local.set $left (i32.sub (local.get $left) (i32.const 1)))
        (br_if $value (local.get $left))
        (if (i32.eq (local.get $depth) (i32.const 1))
          (then
            (global.set $endA (local.get $pa))
            (global.set $endB (local.get $pb))
            (return (i32.const 0))))
        (local.set $depth (i32.sub (local.get $depth) (i32.const 1)))
        (local.set $c (i32.load offset=132 (i32.shl (local.get $depth) (i32.const 3))))
        (if (local.get $c) (then (return (local.get $c))))
        (local.set $left (i32.load offset=128 (i32.shl (local.get $depth) (i32.const 3))))
        (br $close)))
    (unreachable))

  ;; Two validated LedgerKeys (spec §2.3): LedgerEntryType, then the key fields of the arm.
  (func $cmpKey (param $pa i32) (param $pb i32) (result i32)
    (local $x i32) (local $y i32)
    (local.set $x (i32.load (local.get $pa)))
    (local.set $y (i32.load (local.get $pb)))
    (if (i32.ne (local.get $x) (local.get $y))
      (then (return (call $order (i32.rotl (local.get $x) (i32.const 8)) (i32.rotl (local.get $y) (i32.const 8))))))
    (call $cmpKeyArm
      (i32.rotl (local.get $x) (i32.const 8))
      (i32.add (local.get $pa) (i32.const 4))
      (i32.add (local.get $pb) (i32.const 4))))

  ;; The key fields of two validated keys of the same LedgerEntryType, at pa / pb (in a LedgerKey right after the
  ;; type; in a LedgerEntry after the type and, for CONTRACT_DATA and CONTRACT_CODE, the arm's ext).
  (func $cmpKeyArm (param $type i32) (param $pa i32) (param $pb i32) (result i32)
    (local $c i32)
    (block $config
      (block $contractData
        (block $hash
          (block $data
            (block $offer
              (block $trustLine
                (block $accountLike
                  (br_table $accountLike $trustLine $offer $data $accountLike $hash $contractData $hash $config $hash
                    (local.get $type)))
                ;; ACCOUNT, CLAIMABLE_BALANCE: discriminant 0 + 32 bytes, ordered like the bytes.
                (return (call $cmpBytes (local.get $pa) (local.get $pb) (i32.const 36))))
              ;; TRUSTLINE: accountID and asset type (40 bytes), then a same-type asset arm ordered like its bytes:
              ;; NATIVE 0, ALPHANUM4 40, ALPHANUM12 48, POOL_SHARE 32 bytes.
              (local.set $c (call $cmpBytes (local.get $pa) (local.get $pb) (i32.const 40)))
              (if (local.get $c) (then (return (local.get $c))))
              (local.set $type (i32.rotl (i32.load offset=36 (local.get $pa)) (i32.const 8)))
              (return (call $cmpBytes
                (i32.add (local.get $pa) (i32.const 40))
                (i32.add (local.get $pb) (i32.const 40))
                (i32.and
                  (i32.shr_u (i32.const 0x20302800) (i32.shl (local.get $type) (i32.const 3)))
                  (i32.const 0xff)))))
            ;; OFFER: sellerID, then offerID as a signed int64.
            (local.set $c (call $cmpBytes (local.get $pa) (local.get $pb) (i32.const 36)))
            (if (local.get $c) (then (return (local.get $c))))
            (return (call $cmpSigned
              (i32.add (local.get $pa) (i32.const 36)) (i32.add (local.get $pb) (i32.const 36)) (i32.const 8))))
          ;; DATA: accountID, then dataName as a string (content first, not length first).
          (local.set $c (call $cmpBytes (local.get $pa) (local.get $pb) (i32.const 36)))
          (if (local.get $c) (then (return (local.get $c))))
          (return (call $cmpVarOpaque
            (i32.add (local.get $pa) (i32.const 36))
            (i32.add (local.get $pb) (i32.const 36)))))
        ;; LIQUIDITY_POOL, CONTRACT_CODE, TTL: the 32-byte hash.
        (return (call $cmpBytes (local.get $pa) (local.get $pb) (i32.const 32))))
      ;; CONTRACT_DATA: contract, then key, then durability (TEMPORARY 0 < PERSISTENT 1).
      (local.set $c (call $cmpScAddress (local.get $pa) (local.get $pb)))
      (if (local.get $c) (then (return (local.get $c))))
      (local.set $c (call $cmpScVal (global.get $endA) (global.get $endB)))
      (if (local.get $c) (then (return (local.get $c))))
      (return (call $cmpBytes (global.get $endA) (global.get $endB) (i32.const 4))))
    ;; CONFIG_SETTING: ConfigSettingID 0..20 (an int32 enum; all defined values are non-negative).
    (call $cmpBytes (local.get $pa) (local.get $pb) (i32.const 4)))

  ;; Where the key fields of the keyed record at p start: a LedgerKey's (isEntry 0) right after its type; a
  ;; LedgerEntry's (isEntry 1) after lastModifiedLedgerSeq, the type and, for CONTRACT_DATA, its ExtensionPoint (v0,
  ;; one word) or, for CONTRACT_CODE, its ext (v0 one word; v1 a word and ContractCodeCostInputs, 48 bytes).
  (func $keyFields (param $p i32) (param $isEntry i32) (result i32)
    (local $type i32)
    (if (i32.eqz (local.get $isEntry)) (then (return (i32.add (local.get $p) (i32.const 4)))))
    (local.set $type (i32.rotl (i32.load offset=4 (local.get $p)) (i32.const 8)))
    (local.set $p (i32.add (local.get $p) (i32.const 8)))
    (if (i32.eq (local.get $type) (i32.const 6)) (then (return (i32.add (local.get $p) (i32.const 4)))))
    (if (i32.eq (local.get $type) (i32.const 7))
      (then (return (i32.add
        (local.get $p)
        (select (i32.const 52) (i32.const 4) (i32.eq (i32.load (local.get $p)) (i32.const 0x01000000)))))))
    (local.get $p))

  ;; ---- entry points ---------------------------------------------------------------------------------------------

  ;; Two keyed records already validated whole, in place anywhere in memory at pa / pb (4-aligned; callers put their
  ;; buffers above the first page, which this module owns): each a LedgerEntry (isEntry 1) or a LedgerKey (0).
  ;; -1 / 0 / 1 by their keys, as compareKeyedRecordsAt in compare.ts: nothing is validated and nothing past the
  ;; first difference is read, so bytes that are not valid records give a meaningless order (never a read outside
  ;; this memory: a wasm load out of bounds traps).
  (func (export "compareKeyedAt")
    (param $pa i32) (param $aIsEntry i32) (param $pb i32) (param $bIsEntry i32) (result i32)
    (local $x i32) (local $y i32)
    (local.set $x (i32.load (i32.add (local.get $pa) (i32.shl (local.get $aIsEntry) (i32.const 2)))))
    (local.set $y (i32.load (i32.add (local.get $pb) (i32.shl (local.get $bIsEntry) (i32.const 2)))))
    (if (i32.ne (local.get $x) (local.get $y))
      (then (return (call $order (i32.rotl (local.get $x) (i32.const 8)) (i32.rotl (local.get $y) (i32.const 8))))))
    (call $cmpKeyArm
      (i32.rotl (local.get $x) (i32.const 8))
      (call $keyFields (local.get $pa) (local.get $aIsEntry))
      (call $keyFields (local.get $pb) (local.get $bIsEntry))))

  ;; Keys at KEY_A (lenA bytes) and KEY_B (lenB bytes), each at most KEY_CAPACITY: -1 / 0 / 1, or 2 when either key
  ;; is not exactly one valid LedgerKey.
  (func (export "compare") (param $lenA i32) (param $lenB i32) (result i32)
    (local $endA i32) (local $endB i32)
    (local.set $endA (i32.add (i32.const 2048) (local.get $lenA)))
    (local.set $endB (i32.add (i32.const 33792) (local.get $lenB)))
    (if (i32.ne (call $skipKey (i32.const 2048) (local.get $endA)) (local.get $endA)) (then (return (i32.const 2))))
    (if (i32.ne (call $skipKey (i32.const 33792) (local.get $endB)) (local.get $endB)) (then (return (i32.const 2))))
    (call $cmpKey (i32.const 2048) (i32.const 33792))))
