// Package index holds the validator's type-free indexes: structures over
// addresses and prefixes (net/netip) that know nothing of routes, nodes or
// findings. AddrMap maps addresses, PrefixMap prefixes (IPv4 ones in a packed
// open-addressing table of one word a slot), SortedKeys is a sorted list of
// prefixes searched without a comparison function, and HashKey and SortKey
// are a prefix as a flat map key and as integers in netip's order.
//
// The package is pure: it imports only the standard library.
package index
