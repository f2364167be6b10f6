// pctxdump: prints a process's OTEP 4719 process context as decoded by ctx-sharing-demo's own
// decoder (crate custom-labels). scripts/interop.sh builds it against a checkout of that repo
// (path dependency), see docs/interop.md.
fn main() {
    let pid: i32 = std::env::args().nth(1).expect("pid").parse().expect("pid");
    match custom_labels::process_context::read_process_context_from_pid(pid) {
        Ok(ctx) => {
            for kv in &ctx.resources {
                println!("resource {} = {:?}", kv.key, kv.value);
            }
            for kv in &ctx.extra_attributes {
                println!("extra {} = {:?}", kv.key, kv.value);
            }
            match custom_labels::v2::process_context_ext::TlsConfig::from_process_context(&ctx) {
                Some(cfg) => println!("tls_config key_table = {:?}", cfg.key_table),
                None => println!("tls_config NONE (schema version or key map rejected)"),
            }
        }
        Err(e) => {
            println!("ERROR {e}");
            std::process::exit(1);
        }
    }
}
