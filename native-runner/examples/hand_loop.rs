//! A minimal hand-written loop of back-to-back rdtsc reads, to check the lab's read cost
//! against: the minimum over 50 blocks of 1 000 000 reads, in counts per read.

#[cfg(target_arch = "x86_64")]
fn main() {
    use std::arch::x86_64::_rdtsc;
    use std::hint::black_box;
    const READS: u64 = 1_000_000;
    let mut best = f64::INFINITY;
    for _ in 0..50 {
        let start = unsafe { _rdtsc() };
        for _ in 1..READS {
            black_box(unsafe { _rdtsc() });
        }
        let end = unsafe { _rdtsc() };
        best = best.min((end - start) as f64 / READS as f64);
    }
    println!("hand loop: {best:.3} counts per rdtsc");
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    eprintln!("rdtsc needs an x86-64 CPU");
    std::process::exit(1);
}
