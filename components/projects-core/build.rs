//! Compiles in the built-in brief writer's word lists (`src/writer/words.json`).

/// Word lists as data (the text crate's build step, shared).
#[path = "../text/build/word_lists.rs"]
#[allow(dead_code)]
mod word_lists;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=../text/build/word_lists.rs");
    word_lists::compile_constants("src/writer/words.json", "writer_words.rs");
}
