// The storage seam (interfaces every backend implements) and its local-file backend.
export { LocalStorage } from './local-storage.js';
export { MAX_MAPPED_FILE_BYTES, type Storage, type StorageFile, type StorageWriter } from './storage.js';
