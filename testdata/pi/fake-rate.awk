# A stand-in PI for the regression tests, run as
#   awk -f fake-rate.awk SPEED_FILE [SLOW_FILE [NOISE]]
# prints a pi.json whose rate is 100 GFLOPS times the speed of the code
# under test (the number in SPEED_FILE, 1 when absent), times 0.7 while
# SLOW_FILE says the host is in a slow phase (it holds how many more runs
# the phase lasts, counted down), with gaussian noise of relative size
# NOISE (default 0.01). One awk process a run, nothing forked: the tests
# run a few hundred of them.
BEGIN {
  speed = 1
  if ((getline line < ARGV[1]) > 0) speed = line + 0
  close(ARGV[1])
  host = 1
  if (ARGV[2] != "" && (getline left < ARGV[2]) > 0) {
    close(ARGV[2])
    if (left + 0 > 0) {
      host = 0.7
      print left - 1 > ARGV[2]
      close(ARGV[2])
    }
  }
  noise = ARGV[3] != "" ? ARGV[3] + 0 : 0.01
  # The noise of each run is its own: seeded from the kernel's random
  # UUID (28 bits of it), not from the time or the pid, whose consecutive
  # values give awk's generator close first draws and so runs of one
  # build that agree more than runs should; below 2^31, since mawk's srand
  # takes every larger seed as one and the same.
  seed = 0
  if ((getline uuid < "/proc/sys/kernel/random/uuid") > 0) {
    for (i = 1; i <= 7; i++) seed = seed * 16 + index("0123456789abcdef", substr(uuid, i, 1)) - 1
  }
  srand(seed + 1)
  g = sqrt(-2 * log(1 - rand())) * cos(6.283185307 * rand())
  # Cut at 3 standard deviations, so that the rate stays positive and
  # finite at the largest noise the tests use (0.3): a draw below -3.33
  # (one run in 2,300) made a negative rate, which seshat pi rightly
  # rejects, and failed a job for the stand-in's sake.
  if (g > 3) g = 3
  if (g < -3) g = -3
  r = 100 * speed * host * (1 + noise * g); e = 1000 / r
  printf "{\"component\": \"fake\", \"name\": \"PiFake\", \"@parameters\": {\"matrix_size\": 64},"
  printf " \"@result\": {\"rate\": %.4f, \"elapsed\": %.5f, \"samples_ms\": [%.5f], \"ci95_low\": %.5f, \"ci95_high\": %.5f},", r, e, e, e * 0.99, e * 1.01
  printf " \"versions\": {\"fake\": \"1.0\"}}\n"
  exit
}
