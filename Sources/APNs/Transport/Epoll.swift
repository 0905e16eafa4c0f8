/// `epoll` event bits from <sys/epoll.h>. Glibc declares them as an enum shadowed by same-named
/// macros, which Swift does not import, so their (ABI-fixed) values are spelled out here.
enum Epoll {
    static let input: UInt32 = 0x001
    static let output: UInt32 = 0x004
    static let error: UInt32 = 0x008
    static let hangUp: UInt32 = 0x010
}
