//! Compiles in the built-in brief writer's word lists (`src/writer/words.json`)
//! and the context check's (`src/context_words.json`).

/// Word lists as data (the text crate's build step, shared).
#[path = "../text/build/word_lists.rs"]
#[allow(dead_code)]
mod word_lists;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=../text/build/word_lists.rs");
    word_lists::compile_constants("src/writer/words.json", "writer_words.rs");
    word_lists::compile_constants("src/context_words.json", "context_words.rs");
}
