;; Throws an exception of a tag the host gave it, carrying an externref (the leased Memory the host handed it): the
;; runner rethrows exceptions unchanged, and the host, holding the tag, reads the payload. The runner must refuse it.
(module
  (import "env" "memory" (memory 1))
  (import "env" "handle" (func $handle (result externref)))
  (import "env" "tag" (tag $thrown (param externref)))
  (func (export "leak") (throw $thrown (call $handle)))
)
