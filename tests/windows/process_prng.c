/* Wine 8 lacks bcryptprimitives.dll's ProcessPrng, which Rust's std imports: this one
   fills the buffer through advapi32's RtlGenRandom (SystemFunction036). Test plumbing. */
#include <windows.h>
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    return SystemFunction036(data, (ULONG)length);
}
