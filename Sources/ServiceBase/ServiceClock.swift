// The service's one clock (`ServiceClock`, `SystemServiceClock`) lives in the Clocks leaf, shared
// with the APNs client's transport and token cache and with the logs' `RepeatLog`. Nearly every
// part of the service reads it, so the module imports it once, here, for all its files (and for
// the command line and tests that import the service) rather than file by file.
@_exported import Clocks
