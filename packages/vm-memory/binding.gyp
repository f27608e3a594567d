{
  "targets": [
    {
      "target_name": "vm_memory",
      "sources": ["native/vm_memory.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    }
  ]
}
