"""The load stage, module -> entry: the import hook, the warm path (cache read, trust check,
lazy IR and plans), the cold path (derive, render, write) and the registry (SPEC section 6)."""
