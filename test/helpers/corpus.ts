// The corpus's gperftools profiles (../shared/corpus/gperf, copied under test/fixtures/gperf), by name.
export const CORPUS_PROFILES = [
  'tiny',
  'tiny_preload',
  'tiny_f1000',
  'tiny32',
  'cxx_demangle',
  'cxx_demangle32',
  'deep_recursion',
  'deep_recursion32',
  'threads',
  'threads_ptt',
  'shlib',
  'big_synth_small',
];
