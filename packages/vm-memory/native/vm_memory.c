/*
 * The optional native helper of @strata/vm-memory: find the written pages of a WebAssembly memory with the
 * PAGEMAP_SCAN ioctl (Linux >= 6.7) and decommit pages with madvise(MADV_DONTNEED). Linux only.
 *
 * Every function takes the memory's ArrayBuffer *as it is now* plus the length the caller expects, and reads pointer
 * and length from the ArrayBuffer itself (napi_get_arraybuffer_info). A detached buffer (a view captured before a
 * memory.grow) has no data and length 0, and a grown one has the wrong length: both throw instead of silently doing
 * nothing, so a stale view can never turn a reset into a no-op.
 *
 * Built by scripts/build-native.mjs (the package's install script) with node-gyp; the package works without it.
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

/* Bumped when a function's contract changes; src/native.ts refuses a binary of another version. */
#define VM_MEMORY_NATIVE_VERSION 1

/* From include/uapi/linux/fs.h (Linux 6.7). Defined here so the helper builds against older kernel headers; on an
 * older kernel the ioctl fails with ENOTTY and the JS side reports PAGEMAP_SCAN unavailable. */
struct vmm_page_region {
  uint64_t start;
  uint64_t end;
  uint64_t categories;
};
struct vmm_pm_scan_arg {
  uint64_t size;
  uint64_t flags;
  uint64_t start;
  uint64_t end;
  uint64_t walk_end;
  uint64_t vec;
  uint64_t vec_len;
  uint64_t max_pages;
  uint64_t category_inverted;
  uint64_t category_mask;
  uint64_t category_anyof_mask;
  uint64_t return_mask;
};
#define VMM_PAGEMAP_SCAN _IOWR('f', 16, struct vmm_pm_scan_arg)
#define VMM_PAGE_IS_PRESENT (1ULL << 3)
#define VMM_PAGE_IS_SWAPPED (1ULL << 4)
#define VMM_PAGE_IS_PFNZERO (1ULL << 5)

#define REGION_BATCH 256

/* /proc/self/pagemap, opened on first use and shared by every thread (ioctl uses no file position). */
static int pagemap_fd = -1;

static napi_value throw_code(napi_env env, const char* code, const char* message) {
  napi_value code_value, message_value, error;
  napi_create_string_utf8(env, code, NAPI_AUTO_LENGTH, &code_value);
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &message_value);
  napi_create_error(env, code_value, message_value, &error);
  napi_throw(env, error);
  return NULL;
}

static napi_value throw_errno(napi_env env, const char* what, int err) {
  char message[200];
  snprintf(message, sizeof message, "%s: %s (errno %d)", what, strerror(err), err);
  /* ENOTTY/EINVAL/EPERM from the ioctl mean "not available here", anything else is an I/O failure. */
  return throw_code(env, err == ENOTTY || err == EINVAL || err == EPERM || err == EACCES ? "ENOSYS" : "EIO", message);
}

static double arg_double(napi_env env, napi_value value) {
  double result = -1;
  if (napi_get_value_double(env, value, &result) != napi_ok) return -1;
  return result;
}

/* Reads the memory argument: an attached ArrayBuffer of exactly `expected` bytes at a page-aligned address. */
static int memory_arg(napi_env env, napi_value buffer, napi_value expected_value, uint8_t** data, size_t* length) {
  void* raw = NULL;
  size_t raw_length = 0;
  bool is_buffer = false;
  if (napi_is_arraybuffer(env, buffer, &is_buffer) != napi_ok || !is_buffer) {
    throw_code(env, "EINVAL", "expected an ArrayBuffer");
    return 0;
  }
  if (napi_get_arraybuffer_info(env, buffer, &raw, &raw_length) != napi_ok) {
    throw_code(env, "EINVAL", "cannot read the ArrayBuffer");
    return 0;
  }
  double expected = arg_double(env, expected_value);
  if (raw == NULL || raw_length == 0 || (double)raw_length != expected) {
    throw_code(env, "ESIZE", "memory buffer is detached or not the expected length");
    return 0;
  }
  if (((uintptr_t)raw & (uintptr_t)(sysconf(_SC_PAGESIZE) - 1)) != 0) {
    throw_code(env, "EINVAL", "memory buffer is not page aligned");
    return 0;
  }
  *data = (uint8_t*)raw;
  *length = raw_length;
  return 1;
}

/*
 * scanDirty(buffer, expectedLength, out: Float64Array) -> count
 * Writes the [start, end) byte offsets of every run of pages that may hold data: present or swapped, and not the
 * shared zero page. Adjacent runs are merged. Returns the number of runs; when it exceeds out.length / 2 only the
 * first out.length / 2 were written and the caller retries with a larger array.
 */
static napi_value ScanDirty(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 3)
    return throw_code(env, "EINVAL", "scanDirty(buffer, expectedLength, out)");
  uint8_t* data;
  size_t length;
  if (!memory_arg(env, argv[0], argv[1], &data, &length)) return NULL;
  napi_typedarray_type type;
  size_t out_length;
  void* out_data;
  napi_value out_buffer;
  size_t out_offset;
  if (napi_get_typedarray_info(env, argv[2], &type, &out_length, &out_data, &out_buffer, &out_offset) != napi_ok ||
      type != napi_float64_array)
    return throw_code(env, "EINVAL", "out must be a Float64Array");
  double* out = (double*)out_data;
  size_t capacity = out_length / 2;

  if (__atomic_load_n(&pagemap_fd, __ATOMIC_ACQUIRE) < 0) {
    /* One descriptor for the process; worker threads may race to open it, the loser closes its own. */
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return throw_errno(env, "open /proc/self/pagemap", errno);
    int expected = -1;
    if (!__atomic_compare_exchange_n(&pagemap_fd, &expected, fd, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) close(fd);
  }
  int fd = __atomic_load_n(&pagemap_fd, __ATOMIC_ACQUIRE);
  struct vmm_page_region regions[REGION_BATCH];
  uint64_t base = (uint64_t)(uintptr_t)data;
  uint64_t end = base + length;
  struct vmm_pm_scan_arg arg;
  memset(&arg, 0, sizeof arg);
  arg.size = sizeof arg;
  arg.start = base;
  arg.end = end;
  arg.vec = (uint64_t)(uintptr_t)regions;
  arg.vec_len = REGION_BATCH;
  /* (PRESENT or SWAPPED) and not PFNZERO. FILE is not excluded: an anonymous memory has no file pages, and if one
   * ever showed up, resetting it is the safe choice. A swapped page is dirty (Wasmtime PR #14357's bug). */
  arg.category_inverted = VMM_PAGE_IS_PFNZERO;
  arg.category_mask = VMM_PAGE_IS_PFNZERO;
  arg.category_anyof_mask = VMM_PAGE_IS_PRESENT | VMM_PAGE_IS_SWAPPED;
  arg.return_mask = 0; /* categories not needed: adjacent regions merge */

  size_t count = 0;
  uint64_t last_end = 0;
  for (;;) {
    long filled = ioctl(fd, VMM_PAGEMAP_SCAN, &arg);
    if (filled < 0) {
      if (errno == EINTR) continue;
      return throw_errno(env, "ioctl(PAGEMAP_SCAN)", errno);
    }
    for (long i = 0; i < filled; i++) {
      uint64_t start = regions[i].start, stop = regions[i].end;
      if (start < base || stop > end || start >= stop) return throw_code(env, "EIO", "PAGEMAP_SCAN returned a region outside the memory");
      if (count > 0 && start == last_end) {
        if (count <= capacity) out[2 * (count - 1) + 1] = (double)(stop - base);
      } else {
        if (count < capacity) {
          out[2 * count] = (double)(start - base);
          out[2 * count + 1] = (double)(stop - base);
        }
        count++;
      }
      last_end = stop;
    }
    /* A full batch means the walk may have stopped early: resume where it ended (PR #14357's other gap). */
    if ((size_t)filled < REGION_BATCH || arg.walk_end >= end) break;
    arg.start = arg.walk_end;
  }
  napi_value result;
  napi_create_double(env, (double)count, &result);
  return result;
}

/* decommit(buffer, expectedLength, offset, length): madvise(MADV_DONTNEED) on a page-aligned range of the memory. */
static napi_value Decommit(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 4)
    return throw_code(env, "EINVAL", "decommit(buffer, expectedLength, offset, length)");
  uint8_t* data;
  size_t length;
  if (!memory_arg(env, argv[0], argv[1], &data, &length)) return NULL;
  double offset = arg_double(env, argv[2]), range = arg_double(env, argv[3]);
  double page = (double)sysconf(_SC_PAGESIZE);
  if (!(offset >= 0) || !(range >= 0) || offset + range > (double)length || offset != (double)(uint64_t)offset ||
      range != (double)(uint64_t)range || (uint64_t)offset % (uint64_t)page != 0 || (uint64_t)range % (uint64_t)page != 0)
    return throw_code(env, "EINVAL", "decommit range is not page aligned or out of bounds");
  if (range > 0 && madvise(data + (uint64_t)offset, (size_t)range, MADV_DONTNEED) != 0)
    return throw_errno(env, "madvise(MADV_DONTNEED)", errno);
  return NULL;
}

/* address(buffer): the memory's base address as a double (user-space addresses are below 2^53). */
static napi_value Address(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  void* raw = NULL;
  size_t raw_length = 0;
  bool is_buffer = false;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_is_arraybuffer(env, argv[0], &is_buffer) != napi_ok || !is_buffer ||
      napi_get_arraybuffer_info(env, argv[0], &raw, &raw_length) != napi_ok || raw == NULL)
    return throw_code(env, "EINVAL", "address(buffer) needs an attached ArrayBuffer");
  napi_value result;
  napi_create_double(env, (double)(uintptr_t)raw, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value value;
  napi_create_function(env, "scanDirty", NAPI_AUTO_LENGTH, ScanDirty, NULL, &value);
  napi_set_named_property(env, exports, "scanDirty", value);
  napi_create_function(env, "decommit", NAPI_AUTO_LENGTH, Decommit, NULL, &value);
  napi_set_named_property(env, exports, "decommit", value);
  napi_create_function(env, "address", NAPI_AUTO_LENGTH, Address, NULL, &value);
  napi_set_named_property(env, exports, "address", value);
  napi_create_int64(env, sysconf(_SC_PAGESIZE), &value);
  napi_set_named_property(env, exports, "pageSize", value);
  napi_create_int32(env, VM_MEMORY_NATIVE_VERSION, &value);
  napi_set_named_property(env, exports, "version", value);
  return exports;
}
