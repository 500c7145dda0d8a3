//! Windows: QueryPerformanceCounter (its claim 1 / QueryPerformanceFrequency), the system
//! time in FILETIME's 100 ns units (precise, or as of the last timer interrupt), the tick
//! counts in milliseconds (GetTickCount64, timeGetTime), the interrupt times (biased or not,
//! precise or not), CPU time (GetProcessTimes, GetThreadTimes: 100 ns units charged at the
//! timer's interrupts) and a thread's cycles (QueryThreadCycleTime). A clock that moves with
//! the system timer claims the timer's current interval, as Windows reports it
//! (NtQueryTimerResolution, or GetSystemTimeAdjustment's increment): what one program asks
//! with timeBeginPeriod changes it for all. Functions an older Windows (or Wine) lacks are
//! looked up, not linked, and their clocks listed with the reason.

use std::ffi::c_void;

use ticklab::clock::{Clock, ClockInfo, ClockKind, CountPeriod, Ratio};
use windows_sys::Win32::Foundation::FILETIME;
use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleA, GetProcAddress};

use super::{unavailable, Entry, NativeClock};

/// A function that fills a count.
type Fill = unsafe extern "system" fn(*mut u64) -> i32;
/// A function that fills a FILETIME.
type FillFileTime = unsafe extern "system" fn(*mut FILETIME);
/// A function that fills a count and returns nothing.
type FillVoid = unsafe extern "system" fn(*mut u64);

/// How a clock is read.
#[derive(Clone, Copy)]
enum Source {
    Qpc,
    FileTime(FillFileTime),
    TickCount64,
    TimeGetTime,
    Interrupt(FillVoid),
    Unbiased(Fill),
    ProcessTimes,
    ThreadTimes,
    ThreadCycles,
}

/// A Windows clock.
pub struct WinClock {
    info: ClockInfo,
    source: Source,
    /// timeGetTime's 32 bits, widened as they wrap.
    high: u64,
    last32: u32,
}

fn filetime(ft: FILETIME) -> u64 {
    (u64::from(ft.dwHighDateTime) << 32) | u64::from(ft.dwLowDateTime)
}

impl Clock for WinClock {
    fn info(&self) -> &ClockInfo {
        &self.info
    }
    #[inline]
    fn read(&mut self) -> u64 {
        use windows_sys::Win32::System::Threading as t;
        // Safe: each function takes valid out-pointers and the current process's or
        // thread's pseudo-handle; the looked-up ones were found by their documented names.
        unsafe {
            match self.source {
                Source::Qpc => {
                    let mut c = 0i64;
                    windows_sys::Win32::System::Performance::QueryPerformanceCounter(&mut c);
                    c as u64
                }
                Source::FileTime(f) => {
                    let mut ft = FILETIME {
                        dwLowDateTime: 0,
                        dwHighDateTime: 0,
                    };
                    f(&mut ft);
                    filetime(ft)
                }
                Source::TickCount64 => {
                    windows_sys::Win32::System::SystemInformation::GetTickCount64()
                }
                Source::TimeGetTime => {
                    let now = windows_sys::Win32::Media::timeGetTime();
                    if now < self.last32 {
                        self.high += 1 << 32;
                    }
                    self.last32 = now;
                    self.high + u64::from(now)
                }
                Source::Interrupt(f) => {
                    let mut c = 0u64;
                    f(&mut c);
                    c
                }
                Source::Unbiased(f) => {
                    let mut c = 0u64;
                    f(&mut c);
                    c
                }
                Source::ProcessTimes | Source::ThreadTimes => {
                    let zero = FILETIME {
                        dwLowDateTime: 0,
                        dwHighDateTime: 0,
                    };
                    let (mut a, mut b, mut kernel, mut user) = (zero, zero, zero, zero);
                    if matches!(self.source, Source::ProcessTimes) {
                        t::GetProcessTimes(
                            t::GetCurrentProcess(),
                            &mut a,
                            &mut b,
                            &mut kernel,
                            &mut user,
                        );
                    } else {
                        t::GetThreadTimes(
                            t::GetCurrentThread(),
                            &mut a,
                            &mut b,
                            &mut kernel,
                            &mut user,
                        );
                    }
                    filetime(kernel).wrapping_add(filetime(user))
                }
                Source::ThreadCycles => {
                    let mut c = 0u64;
                    windows_sys::Win32::System::WindowsProgramming::QueryThreadCycleTime(
                        t::GetCurrentThread(),
                        &mut c,
                    );
                    c
                }
            }
        }
    }
}

/// A function of `module` by its name, when this Windows has it.
fn lookup(module: &[u8], name: &[u8]) -> Option<*const c_void> {
    // Safe: NUL-terminated names; a module handle from GetModuleHandleA is valid while the
    // module is loaded, and kernel32 and ntdll are never unloaded.
    unsafe {
        let m = GetModuleHandleA(module.as_ptr());
        if m.is_null() {
            return None;
        }
        GetProcAddress(m, name.as_ptr()).map(|f| f as *const c_void)
    }
}

/// The system timer's current interval in 100 ns units, and where it was read.
pub fn timer_interval() -> Option<(u64, &'static str)> {
    type Query = unsafe extern "system" fn(*mut u32, *mut u32, *mut u32) -> i32;
    if let Some(f) = lookup(b"ntdll.dll\0", b"NtQueryTimerResolution\0") {
        // Safe: the documented signature (maximum, minimum, current, in 100 ns units).
        let f: Query = unsafe { std::mem::transmute(f) };
        let (mut max, mut min, mut current) = (0u32, 0u32, 0u32);
        if unsafe { f(&mut max, &mut min, &mut current) } == 0 && current > 0 {
            return Some((
                u64::from(current),
                "NtQueryTimerResolution: the current interval",
            ));
        }
    }
    let (mut adjustment, mut increment, mut disabled) = (0u32, 0u32, 0i32);
    // Safe: valid out-pointers.
    let ok = unsafe {
        windows_sys::Win32::System::SystemInformation::GetSystemTimeAdjustment(
            &mut adjustment,
            &mut increment,
            &mut disabled,
        )
    } != 0;
    (ok && increment > 0).then_some((
        u64::from(increment),
        "GetSystemTimeAdjustment: the increment",
    ))
}

/// The counts of 100 ns (FILETIME's unit).
fn hundred_ns() -> CountPeriod {
    CountPeriod::Exact {
        ns: Ratio::integer(100).expect("100 ns is a valid period"),
    }
}

/// Milliseconds.
fn millis() -> CountPeriod {
    CountPeriod::Exact {
        ns: Ratio::integer(1_000_000).expect("1 ms is a valid period"),
    }
}

/// What a clock that moves with the system timer claims: its current interval.
fn timer_claim(info: ClockInfo) -> ClockInfo {
    match timer_interval() {
        Some((units, source)) => info.with_claim(units as f64 * 100.0, source),
        None => info,
    }
}

fn clock(info: ClockInfo, source: Source) -> Entry {
    Entry::ready(
        info.clone(),
        NativeClock::Windows(WinClock {
            info,
            source,
            high: 0,
            last32: 0,
        }),
    )
}

/// QueryPerformanceCounter, its period 1 / QueryPerformanceFrequency (10 MHz on current
/// Windows, whatever the hardware under it).
fn qpc() -> Entry {
    let mut hz = 0i64;
    // Safe: a valid out-pointer.
    unsafe { windows_sys::Win32::System::Performance::QueryPerformanceFrequency(&mut hz) };
    let Some(ns) = u64::try_from(hz)
        .ok()
        .and_then(|hz| Ratio::new(1_000_000_000, hz).ok())
    else {
        return unavailable(
            "QueryPerformanceCounter",
            ClockKind::Monotonic,
            "QueryPerformanceFrequency gave no frequency",
        );
    };
    let info = ClockInfo::new(
        "QueryPerformanceCounter",
        ClockKind::Monotonic,
        CountPeriod::Exact { ns },
    )
    .with_description("The performance counter, Windows' own high-resolution clock")
    .with_claim(ns.as_f64(), "QueryPerformanceFrequency: one count");
    clock(info, Source::Qpc)
}

/// The looked-up clocks: a function of kernel32 that an older Windows lacks.
fn looked_up(
    name: &'static str,
    kind: ClockKind,
    description: &str,
    make: impl FnOnce(*const c_void) -> (Source, ClockInfo),
) -> Entry {
    let mut c_name = name.as_bytes().to_vec();
    c_name.push(0);
    match lookup(b"kernel32.dll\0", &c_name).or_else(|| lookup(b"kernelbase.dll\0", &c_name)) {
        Some(f) => {
            let (source, info) = make(f);
            clock(info.with_description(description), source)
        }
        None => unavailable(name, kind, "this Windows does not have it"),
    }
}

/// Adds every Windows clock.
pub fn add(out: &mut Vec<Entry>) {
    out.push(qpc());
    out.push(looked_up(
        "GetSystemTimePreciseAsFileTime",
        ClockKind::Wall,
        "Time of day in 100 ns units, read through the performance counter (Windows 8 on)",
        |f| {
            // Safe: the documented signature of the function found by its name.
            let f: FillFileTime = unsafe { std::mem::transmute(f) };
            let info = ClockInfo::new(
                "GetSystemTimePreciseAsFileTime",
                ClockKind::Wall,
                hundred_ns(),
            )
            .with_claim(100.0, "FILETIME: 100 ns units")
            .non_monotonic();
            (Source::FileTime(f), info)
        },
    ));
    out.push(looked_up(
        "GetSystemTimeAsFileTime",
        ClockKind::Wall,
        "Time of day in 100 ns units, as of the last timer interrupt",
        |f| {
            // Safe: the documented signature of the function found by its name.
            let f: FillFileTime = unsafe { std::mem::transmute(f) };
            let info = timer_claim(
                ClockInfo::new("GetSystemTimeAsFileTime", ClockKind::Wall, hundred_ns())
                    .non_monotonic(),
            );
            (Source::FileTime(f), info)
        },
    ));
    out.push(clock(
        timer_claim(
            ClockInfo::new("GetTickCount64", ClockKind::Monotonic, millis())
                .with_description("Milliseconds since boot, moved at each timer interrupt"),
        ),
        Source::TickCount64,
    ));
    out.push(clock(
        timer_claim(
            ClockInfo::new("timeGetTime", ClockKind::Monotonic, millis())
                .with_description("Multimedia timer milliseconds; timeBeginPeriod sets its step"),
        ),
        Source::TimeGetTime,
    ));
    interrupt_times(out);
    for (name, kind, source, description) in [
        (
            "GetProcessTimes",
            ClockKind::ProcessCpu,
            Source::ProcessTimes,
            "The process's CPU time (kernel and user), in 100 ns units charged at timer interrupts",
        ),
        (
            "GetThreadTimes",
            ClockKind::ThreadCpu,
            Source::ThreadTimes,
            "This thread's CPU time (kernel and user), in 100 ns units charged at timer interrupts",
        ),
    ] {
        out.push(clock(
            timer_claim(ClockInfo::new(name, kind, hundred_ns()).with_description(description)),
            source,
        ));
    }
    out.push(clock(
        ClockInfo::new(
            "QueryThreadCycleTime",
            ClockKind::ThreadCpu,
            CountPeriod::Unknown,
        )
        .with_description("This thread's CPU cycles; their length is the CPU's, not given"),
        Source::ThreadCycles,
    ));
}

/// An interrupt time's description: 100 ns units, moving with the timer unless precise.
fn interrupt_info(name: &str, precise: bool) -> ClockInfo {
    let info = ClockInfo::new(name, ClockKind::Monotonic, hundred_ns());
    if precise {
        info.with_claim(100.0, "interrupt time: 100 ns units")
    } else {
        timer_claim(info)
    }
}

/// The interrupt times, biased (counting sleep) or not, as of the last timer interrupt or
/// precise (Windows 10 on).
fn interrupt_times(out: &mut Vec<Entry>) {
    // Each returns nothing (VOID) but QueryUnbiasedInterruptTime, which returns a BOOL
    // (QueryUnbiasedInterruptTimePrecise too returns nothing).
    for (name, precise, returns_bool, description) in [
        (
            "QueryInterruptTime",
            false,
            false,
            "Interrupt time in 100 ns units, as of the last timer interrupt",
        ),
        (
            "QueryInterruptTimePrecise",
            true,
            false,
            "Interrupt time in 100 ns units, read through the performance counter",
        ),
        (
            "QueryUnbiasedInterruptTime",
            false,
            true,
            "Interrupt time without sleep, in 100 ns units, as of the last timer interrupt",
        ),
        (
            "QueryUnbiasedInterruptTimePrecise",
            true,
            false,
            "Interrupt time without sleep, in 100 ns units, read through the performance counter",
        ),
    ] {
        out.push(looked_up(name, ClockKind::Monotonic, description, |f| {
            let info = interrupt_info(name, precise);
            // Safe: the documented signature of the function found by its name.
            let source = match returns_bool {
                true => Source::Unbiased(unsafe { std::mem::transmute::<*const c_void, Fill>(f) }),
                false => {
                    Source::Interrupt(unsafe { std::mem::transmute::<*const c_void, FillVoid>(f) })
                }
            };
            (source, info)
        }));
    }
}
