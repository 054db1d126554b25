// fuzz_parameters.cpp -- libFuzzer harness for helib_parameters_deserialize.
#include "fuzz_common.hpp"

namespace {

std::vector<uint8_t> encode(uint64_t n, const std::vector<uint64_t> &t, const std::vector<uint32_t> &chain,
                            const std::vector<uint32_t> &special, uint32_t flags) {
    return fuzz::serialize([&](uint8_t *b, size_t *l) {
        return helib_parameters_serialize(n, t.data(), t.size(), chain.data(), chain.size(), special.data(),
                                          special.size(), flags, b, l);
    });
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    const std::vector<uint64_t> bn = {0x43e1f593f0000001, 0x2833e84879b97091, 0xb85045b68181585d,
                                      0x30644e72e131a029};
    const bool seeds_only = fuzz::write_seeds({
        encode(1 << 16, bn, {58, 58, 59, 59, 59}, {60, 60}, 0),
        encode(1024, {65537}, {40}, {}, HELIB_PARAMETERS_INSECURE),
    });
    if (seeds_only) std::exit(0);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint64_t n = 0, t[64];
    uint32_t chain[64], special[64], flags = 0;
    size_t tl = 64, cl = 64, sl = 64;
    if (helib_parameters_deserialize(data, size, &n, t, &tl, chain, &cl, special, &sl, &flags) == HELIB_OK) {
        fuzz::check_round_trip(data, size,
                               encode(n, std::vector<uint64_t>(t, t + tl), std::vector<uint32_t>(chain, chain + cl),
                                      std::vector<uint32_t>(special, special + sl), flags));
    }
    return 0;
}
