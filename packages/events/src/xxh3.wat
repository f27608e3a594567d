;; XXH3-128 (seed 0, default secret) for inputs of 0..240 bytes, in WebAssembly text: the term-hash path of
;; src/xxh3.ts. Compiled to src/xxh3-wasm.ts by `pnpm build:wasm` (strata-wasm-build), which carries this opening
;; comment block, and with it the notice below, into the generated file.
;;
;; Derived from xxHash (https://github.com/Cyan4973/xxHash), whose license this file keeps:
;;
;;   xxHash - Extremely Fast Hash algorithm
;;   Copyright (c) Yann Collet - Meta Platforms, Inc
;;   BSD 2-Clause License (https://www.opensource.org/licenses/bsd-license.php)
;;
;;   Redistribution and use in source and binary forms, with or without modification, are permitted provided that the
;;   following conditions are met:
;;   * Redistributions of source code must retain the above copyright notice, this list of conditions and the
;;     following disclaimer.
;;   * Redistributions in binary form must reproduce the above copyright notice, this list of conditions and the
;;     following disclaimer in the documentation and/or other materials provided with the distribution.
;;
;;   THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS OR IMPLIED
;;   WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR
;;   PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT OWNER OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT,
;;   INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF
;;   SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY
;;   THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN
;;   ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
;;
;; Transcribed from xxHash 0.8's xxhash.h with the seed terms dropped. Why WebAssembly: it has native i64 arithmetic,
;; where JavaScript emulates every 64-bit multiply with split doubles. Wasm MVP has no 64x64 -> 128 multiply, so
;; XXH_mult64to128 is its portable form (four 32x32 -> 64 products), still all in i64.
;;
;; Memory (one page): the secret at 0..192 (data segment), the 16-byte result at 192 (low 64 LE, then high 64 LE:
;; the TermKey layout), the input at 256..496. The caller writes the input, calls hash128(len), reads the result.
(module
  (memory (export "memory") 1)
  (global (export "OUTPUT") i32 (i32.const 192))
  (global (export "INPUT") i32 (i32.const 256))

  ;; XXH3_kSecret, the 192-byte default secret.
  (data (i32.const 0)
    "\b8\fe\6c\39\23\a4\4b\be\7c\01\81\2c\f7\21\ad\1c\de\d4\6d\e9\83\90\97\db\72\40\a4\a4\b7\b3\67\1f"
    "\cb\79\e6\4e\cc\c0\e5\78\82\5a\d0\7d\cc\ff\72\21\b8\08\46\74\f7\43\24\8e\e0\35\90\e6\81\3a\26\4c"
    "\3c\28\52\bb\91\c3\00\cb\88\d0\65\8b\1b\53\2e\a3\71\64\48\97\a2\0d\f9\4e\38\19\ef\46\a9\de\ac\d8"
    "\a8\fa\76\3f\e3\9c\34\3f\f9\dc\bb\c7\c7\0b\4f\1d\8a\51\e0\4b\cd\b4\59\31\c8\9f\7e\c9\d9\78\73\64"
    "\ea\c5\ac\83\34\d3\eb\c3\c5\81\a0\ff\fa\13\63\eb\17\0d\dd\51\b7\f0\da\49\d3\16\55\26\29\d4\68\9e"
    "\2b\16\be\58\7d\47\a1\fc\8f\f8\b8\d1\7a\d0\31\ce\45\cb\3a\8f\95\16\04\28\af\d7\fb\ca\bb\4b\40\7e")

  ;; High 64 bits of the last $mult64to128 (a global rather than a multi-value return keeps the module MVP).
  (global $hi (mut i64) (i64.const 0))
  ;; XXH128_hash_t acc of the 17..240-byte paths.
  (global $accLo (mut i64) (i64.const 0))
  (global $accHi (mut i64) (i64.const 0))

  ;; XXH_mult64to128 (portable path): returns the low 64 bits, leaves the high 64 in $hi.
  (func $mult64to128 (param $a i64) (param $b i64) (result i64)
    (local $aLo i64) (local $aHi i64) (local $bLo i64) (local $bHi i64)
    (local $loLo i64) (local $hiLo i64) (local $cross i64)
    (local.set $aLo (i64.and (local.get $a) (i64.const 0xffffffff)))
    (local.set $aHi (i64.shr_u (local.get $a) (i64.const 32)))
    (local.set $bLo (i64.and (local.get $b) (i64.const 0xffffffff)))
    (local.set $bHi (i64.shr_u (local.get $b) (i64.const 32)))
    (local.set $loLo (i64.mul (local.get $aLo) (local.get $bLo)))
    (local.set $hiLo (i64.mul (local.get $aHi) (local.get $bLo)))
    ;; cross = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFF) + lo_hi: cannot overflow 64 bits.
    (local.set $cross
      (i64.add
        (i64.add (i64.shr_u (local.get $loLo) (i64.const 32)) (i64.and (local.get $hiLo) (i64.const 0xffffffff)))
        (i64.mul (local.get $aLo) (local.get $bHi))))
    (global.set $hi
      (i64.add
        (i64.add (i64.shr_u (local.get $hiLo) (i64.const 32)) (i64.shr_u (local.get $cross) (i64.const 32)))
        (i64.mul (local.get $aHi) (local.get $bHi))))
    (i64.or (i64.shl (local.get $cross) (i64.const 32)) (i64.and (local.get $loLo) (i64.const 0xffffffff))))

  ;; XXH3_mul128_fold64
  (func $mul128fold64 (param $a i64) (param $b i64) (result i64)
    (i64.xor (call $mult64to128 (local.get $a) (local.get $b)) (global.get $hi)))

  ;; XXH3_avalanche: h ^= h >> 37; h *= PRIME_MX1; h ^= h >> 32.
  (func $avalanche (param $h i64) (result i64)
    (local.set $h (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 37))))
    (local.set $h (i64.mul (local.get $h) (i64.const 0x165667919E3779F9)))
    (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 32))))

  ;; XXH64_avalanche: h ^= h >> 33; h *= PRIME64_2; h ^= h >> 29; h *= PRIME64_3; h ^= h >> 32.
  (func $avalanche64 (param $h i64) (result i64)
    (local.set $h (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 33))))
    (local.set $h (i64.mul (local.get $h) (i64.const 0xC2B2AE3D27D4EB4F)))
    (local.set $h (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 29))))
    (local.set $h (i64.mul (local.get $h) (i64.const 0x165667B19E3779F9)))
    (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 32))))

  ;; XXH_swap32 (MVP has no byte swap): bytes 0 and 2 from a rotate right by 8, bytes 1 and 3 from a rotate left.
  (func $swap32 (param $x i32) (result i32)
    (i32.or
      (i32.and (i32.rotr (local.get $x) (i32.const 8)) (i32.const 0xff00ff00))
      (i32.and (i32.rotl (local.get $x) (i32.const 8)) (i32.const 0x00ff00ff))))

  ;; XXH_swap64: swap bytes within 16-bit lanes, then 16-bit lanes within 32-bit lanes, then the 32-bit halves.
  (func $swap64 (param $x i64) (result i64)
    (local.set $x
      (i64.or
        (i64.shl (i64.and (local.get $x) (i64.const 0x00ff00ff00ff00ff)) (i64.const 8))
        (i64.and (i64.shr_u (local.get $x) (i64.const 8)) (i64.const 0x00ff00ff00ff00ff))))
    (local.set $x
      (i64.or
        (i64.shl (i64.and (local.get $x) (i64.const 0x0000ffff0000ffff)) (i64.const 16))
        (i64.and (i64.shr_u (local.get $x) (i64.const 16)) (i64.const 0x0000ffff0000ffff))))
    (i64.rotl (local.get $x) (i64.const 32)))

  ;; Writes the XXH128_hash_t result in the TermKey layout.
  (func $store (param $low i64) (param $high i64)
    (i64.store offset=192 (i32.const 0) (local.get $low))
    (i64.store offset=200 (i32.const 0) (local.get $high)))

  ;; XXH3_len_0to16_128b, len == 0 branch (seed 0).
  (func $len0
    (call $store
      (call $avalanche64 (i64.xor (i64.load offset=64 (i32.const 0)) (i64.load offset=72 (i32.const 0))))
      (call $avalanche64 (i64.xor (i64.load offset=80 (i32.const 0)) (i64.load offset=88 (i32.const 0))))))

  ;; XXH3_len_1to3_128b (seed 0).
  (func $len1to3 (param $len i32)
    (local $combinedl i32) (local $combinedh i32)
    (local.set $combinedl
      (i32.or
        (i32.or
          (i32.shl (i32.load8_u offset=256 (i32.const 0)) (i32.const 16))
          (i32.shl (i32.load8_u offset=256 (i32.shr_u (local.get $len) (i32.const 1))) (i32.const 24)))
        (i32.or
          (i32.load8_u offset=256 (i32.sub (local.get $len) (i32.const 1)))
          (i32.shl (local.get $len) (i32.const 8)))))
    (local.set $combinedh (i32.rotl (call $swap32 (local.get $combinedl)) (i32.const 13)))
    (call $store
      (call $avalanche64
        (i64.extend_i32_u
          (i32.xor (local.get $combinedl)
            (i32.xor (i32.load offset=0 (i32.const 0)) (i32.load offset=4 (i32.const 0))))))
      (call $avalanche64
        (i64.extend_i32_u
          (i32.xor (local.get $combinedh)
            (i32.xor (i32.load offset=8 (i32.const 0)) (i32.load offset=12 (i32.const 0))))))))

  ;; XXH3_len_4to8_128b (seed 0).
  (func $len4to8 (param $len i32)
    (local $keyed i64) (local $low i64) (local $high i64)
    (local.set $keyed
      (i64.xor
        (i64.or
          (i64.load32_u offset=256 (i32.const 0))
          (i64.shl (i64.load32_u offset=256 (i32.sub (local.get $len) (i32.const 4))) (i64.const 32)))
        (i64.xor (i64.load offset=16 (i32.const 0)) (i64.load offset=24 (i32.const 0)))))
    ;; Shift len to the left to ensure it is even, this avoids even multiplies.
    (local.set $low
      (call $mult64to128 (local.get $keyed)
        (i64.add (i64.const 0x9E3779B185EBCA87) (i64.extend_i32_u (i32.shl (local.get $len) (i32.const 2))))))
    (local.set $high (i64.add (global.get $hi) (i64.shl (local.get $low) (i64.const 1))))
    (local.set $low (i64.xor (local.get $low) (i64.shr_u (local.get $high) (i64.const 3))))
    (local.set $low (i64.xor (local.get $low) (i64.shr_u (local.get $low) (i64.const 35))))
    (local.set $low (i64.mul (local.get $low) (i64.const 0x9FB21C651E98DF25)))
    (local.set $low (i64.xor (local.get $low) (i64.shr_u (local.get $low) (i64.const 28))))
    (call $store (local.get $low) (call $avalanche (local.get $high))))

  ;; XXH3_len_9to16_128b (seed 0, the 64-bit form of the high64 update).
  (func $len9to16 (param $len i32)
    (local $inputHi i64) (local $mLow i64) (local $mHigh i64) (local $hLow i64)
    (local.set $inputHi (i64.load offset=256 (i32.sub (local.get $len) (i32.const 8))))
    (local.set $mLow
      (call $mult64to128
        (i64.xor
          (i64.xor (i64.load offset=256 (i32.const 0)) (local.get $inputHi))
          (i64.xor (i64.load offset=32 (i32.const 0)) (i64.load offset=40 (i32.const 0))))
        (i64.const 0x9E3779B185EBCA87)))
    (local.set $mHigh (global.get $hi))
    ;; Put len in the middle of m128 so it is mixed into both halves by the 128x64 multiply below.
    (local.set $mLow
      (i64.add (local.get $mLow)
        (i64.shl (i64.extend_i32_u (i32.sub (local.get $len) (i32.const 1))) (i64.const 54))))
    (local.set $inputHi
      (i64.xor (local.get $inputHi)
        (i64.xor (i64.load offset=48 (i32.const 0)) (i64.load offset=56 (i32.const 0)))))
    ;; m128.high64 += input_hi + (u32)input_hi * (PRIME32_2 - 1)
    (local.set $mHigh
      (i64.add (local.get $mHigh)
        (i64.add (local.get $inputHi)
          (i64.mul (i64.and (local.get $inputHi) (i64.const 0xffffffff)) (i64.const 0x85EBCA76)))))
    (local.set $mLow (i64.xor (local.get $mLow) (call $swap64 (local.get $mHigh))))
    ;; 128x64 multiply: h128 = m128 * PRIME64_2
    (local.set $hLow (call $mult64to128 (local.get $mLow) (i64.const 0xC2B2AE3D27D4EB4F)))
    (call $store
      (call $avalanche (local.get $hLow))
      (call $avalanche
        (i64.add (global.get $hi) (i64.mul (local.get $mHigh) (i64.const 0xC2B2AE3D27D4EB4F))))))

  ;; XXH3_mix16B (seed 0): input at INPUT + $p, secret at $s.
  (func $mix16B (param $p i32) (param $s i32) (result i64)
    (call $mul128fold64
      (i64.xor (i64.load offset=256 (local.get $p)) (i64.load (local.get $s)))
      (i64.xor (i64.load offset=264 (local.get $p)) (i64.load offset=8 (local.get $s)))))

  ;; XXH128_mix32B (seed 0) on $accLo/$accHi.
  (func $mix32B (param $p1 i32) (param $p2 i32) (param $s i32)
    (global.set $accLo
      (i64.xor
        (i64.add (global.get $accLo) (call $mix16B (local.get $p1) (local.get $s)))
        (i64.add (i64.load offset=256 (local.get $p2)) (i64.load offset=264 (local.get $p2)))))
    (global.set $accHi
      (i64.xor
        (i64.add (global.get $accHi) (call $mix16B (local.get $p2) (i32.add (local.get $s) (i32.const 16))))
        (i64.add (i64.load offset=256 (local.get $p1)) (i64.load offset=264 (local.get $p1))))))

  ;; The common tail of XXH3_len_17to128_128b and XXH3_len_129to240_128b (seed 0).
  (func $finish17to240 (param $len i32)
    (call $store
      (call $avalanche (i64.add (global.get $accLo) (global.get $accHi)))
      (i64.sub (i64.const 0)
        (call $avalanche
          (i64.add
            (i64.add
              (i64.mul (global.get $accLo) (i64.const 0x9E3779B185EBCA87))
              (i64.mul (global.get $accHi) (i64.const 0x85EBCA77C2B2AE63)))
            (i64.mul (i64.extend_i32_u (local.get $len)) (i64.const 0xC2B2AE3D27D4EB4F)))))))

  ;; XXH3_len_17to128_128b (seed 0; the unrolled, non-XXH_SIZE_OPT form).
  (func $len17to128 (param $len i32)
    (global.set $accLo (i64.mul (i64.extend_i32_u (local.get $len)) (i64.const 0x9E3779B185EBCA87)))
    (global.set $accHi (i64.const 0))
    (if (i32.gt_u (local.get $len) (i32.const 32))
      (then
        (if (i32.gt_u (local.get $len) (i32.const 64))
          (then
            (if (i32.gt_u (local.get $len) (i32.const 96))
              (then (call $mix32B (i32.const 48) (i32.sub (local.get $len) (i32.const 64)) (i32.const 96))))
            (call $mix32B (i32.const 32) (i32.sub (local.get $len) (i32.const 48)) (i32.const 64))))
        (call $mix32B (i32.const 16) (i32.sub (local.get $len) (i32.const 32)) (i32.const 32))))
    (call $mix32B (i32.const 0) (i32.sub (local.get $len) (i32.const 16)) (i32.const 0))
    (call $finish17to240 (local.get $len)))

  ;; XXH3_len_129to240_128b (seed 0).
  (func $len129to240 (param $len i32)
    (local $i i32)
    (global.set $accLo (i64.mul (i64.extend_i32_u (local.get $len)) (i64.const 0x9E3779B185EBCA87)))
    (global.set $accHi (i64.const 0))
    ;; The first 128 bytes: i = 32, 64, 96, 128 (offsets i - 32 and i - 16; secret at i - 32).
    (call $mix32B (i32.const 0) (i32.const 16) (i32.const 0))
    (call $mix32B (i32.const 32) (i32.const 48) (i32.const 32))
    (call $mix32B (i32.const 64) (i32.const 80) (i32.const 64))
    (call $mix32B (i32.const 96) (i32.const 112) (i32.const 96))
    (global.set $accLo (call $avalanche (global.get $accLo)))
    (global.set $accHi (call $avalanche (global.get $accHi)))
    ;; i = 160 while i <= len (repeats the last 32 bytes when len % 32 == 0, as xxHash does);
    ;; secret at XXH3_MIDSIZE_STARTOFFSET (3) + i - 160.
    (local.set $i (i32.const 160))
    (block $done
      (loop $next
        (br_if $done (i32.gt_u (local.get $i) (local.get $len)))
        (call $mix32B
          (i32.sub (local.get $i) (i32.const 32))
          (i32.sub (local.get $i) (i32.const 16))
          (i32.sub (local.get $i) (i32.const 157)))
        (local.set $i (i32.add (local.get $i) (i32.const 32)))
        (br $next)))
    ;; Last bytes: secret at XXH3_SECRET_SIZE_MIN (136) - XXH3_MIDSIZE_LASTOFFSET (17) - 16 = 103.
    (call $mix32B
      (i32.sub (local.get $len) (i32.const 16))
      (i32.sub (local.get $len) (i32.const 32))
      (i32.const 103))
    (call $finish17to240 (local.get $len)))

  ;; XXH3_128bits for len <= XXH3_MIDSIZE_MAX (240), seed 0: the dispatch of XXH3_128bits_internal.
  ;; Callers guarantee 0 <= len <= 240.
  (func (export "hash128") (param $len i32)
    (if (i32.le_u (local.get $len) (i32.const 16))
      (then
        (if (i32.gt_u (local.get $len) (i32.const 8))
          (then (call $len9to16 (local.get $len)) (return)))
        (if (i32.ge_u (local.get $len) (i32.const 4))
          (then (call $len4to8 (local.get $len)) (return)))
        (if (local.get $len)
          (then (call $len1to3 (local.get $len)) (return)))
        (call $len0)
        (return)))
    (if (i32.le_u (local.get $len) (i32.const 128))
      (then (call $len17to128 (local.get $len)) (return)))
    (call $len129to240 (local.get $len)))
)
