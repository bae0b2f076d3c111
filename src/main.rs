//! The `colophon` binary: parse the command line, call into the library,
//! map the outcome to an exit code. Errors print with their whole cause
//! chain (`{:#}`).

use clap::Parser as _;
use colophon::app;
use colophon::cli::Cli;
use colophon::exit::ExitStatus;

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap's message, and ours when a folder was given (exit 2).
            let hint = colophon::cli::usage_hint(&e);
            let _ = e.print();
            if let Some(hint) = hint {
                eprintln!("\n{hint}");
            }
            std::process::exit(e.exit_code());
        }
    };
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
