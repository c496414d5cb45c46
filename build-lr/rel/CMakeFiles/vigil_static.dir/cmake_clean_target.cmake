file(REMOVE_RECURSE
  "libvigil.a"
)
