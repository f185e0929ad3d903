// Linked with --js-library (CMakeLists.txt): replaces emscripten's
// emscripten_resize_heap, which sbrk calls when malloc wants more heap than
// the fixed memory has. Emscripten's own, with ALLOW_MEMORY_GROWTH=0 and
// ABORTING_MALLOC=0, only returns false; this one also counts the refusal in
// the shared heap (heap_guard.c) so that the session that suffers it can end
// as 'out-of-memory'. It runs on the thread that asked, so it calls into wasm
// rather than touching JS state that other threads would not see.
/* global mergeInto, LibraryManager, _lt_heap_refused -- emscripten's library scope */
mergeInto(LibraryManager.library, {
  emscripten_resize_heap: function (requestedSize) {
    _lt_heap_refused(requestedSize >>> 0);
    return false;
  },
});
