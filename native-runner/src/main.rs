//! `ticklab`: every clock of this machine through the core's experiments.

fn main() -> std::process::ExitCode {
    ticklab_native::main()
}
