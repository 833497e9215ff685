// A module with thread-local storage, loaded by dlopen (dtls_tracer_check.sh): each thread's block of
// it is allocated by glibc's malloc -- dynamic TLS, as Mesa's drivers get in a gpuscan process.
thread_local char block[40];

extern "C" char* touch_tls() {
  block[0] = 1;
  return block;
}
