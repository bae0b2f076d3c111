//! The `colophon` binary: parse the command line, call into the library,
//! map the outcome to an exit code. Errors print with their whole cause
//! chain (`{:#}`).

use clap::Parser;
use colophon::app;
use colophon::cli::Cli;
use colophon::exit::ExitStatus;

fn main() {
    let cli = Cli::parse();
    let status = match app::main(cli) {
        Ok(status) => status,
        Err(e) => {
            eprintln!("colophon: {e:#}");
            match e.downcast_ref::<colophon::settings::SettingsError>() {
                Some(_) => ExitStatus::BadUsage,
                None => ExitStatus::SomeFailed,
            }
        }
    };
    std::process::exit(status.code());
}
