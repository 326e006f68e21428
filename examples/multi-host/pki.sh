#!/usr/bin/env bash
# pki.sh: make the certificates of a multi-host rdmaform fabric with openssl,
# in pki/ beside this script:
#   ca.pem, ca-key.pem             the CA that signs every certificate below
#                                  (agents and clients trust it);
#   HOST.pem, HOST-key.pem         an agent's certificate for each HOST (an IP
#                                  address or a DNS name, in its subject
#                                  alternative names);
#   operator.pem, operator-key.pem the client certificate plan and apply use.
# Keys are ECDSA P-256, readable by their owner only. A file that exists is
# kept: run it again with a new host to add one, signed by the same CA.
#
# Usage: examples/multi-host/pki.sh [HOST ...]   (default: 10.77.1.1 10.77.1.2 10.77.1.3)
set -euo pipefail

command -v openssl >/dev/null || { echo "pki.sh: openssl is missing (apt-get install openssl)" >&2; exit 1; }
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd -P)
pki=$here/pki
mkdir -p "$pki"
chmod 700 "$pki"
cd "$pki"
umask 077

if [ $# -eq 0 ]; then
	set -- 10.77.1.1 10.77.1.2 10.77.1.3
fi

# quiet CMD...: runs an openssl command, showing what it said only when it fails.
quiet() {
	local out
	if ! out=$("$@" 2>&1); then
		echo "pki.sh: $* failed:" >&2
		echo "$out" >&2
		exit 1
	fi
}

newkey() { quiet openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"; }

if [ ! -e ca.pem ]; then
	newkey ca-key.pem
	quiet openssl req -new -x509 -key ca-key.pem -subj "/CN=rdmaform CA" -days 3650 -sha256 \
		-config /dev/null \
		-addext "basicConstraints=critical,CA:TRUE" \
		-addext "keyUsage=critical,keyCertSign,cRLSign" \
		-addext "subjectKeyIdentifier=hash" \
		-out ca.pem
	chmod 644 ca.pem
	echo "pki.sh: made the CA: $pki/ca.pem"
fi

# sign NAME SUBJECT_ALT_NAME EXTENDED_KEY_USAGE: NAME.pem and NAME-key.pem.
sign() {
	local name=$1 san=$2 usage=$3
	if [ -e "$name.pem" ]; then
		echo "pki.sh: kept $pki/$name.pem"
		return
	fi
	newkey "$name-key.pem"
	{
		echo "basicConstraints=critical,CA:FALSE"
		echo "keyUsage=critical,digitalSignature"
		echo "extendedKeyUsage=$usage"
		echo "authorityKeyIdentifier=keyid"
		if [ -n "$san" ]; then echo "subjectAltName=$san"; fi
	} >"$name.ext"
	quiet openssl req -new -key "$name-key.pem" -subj "/CN=$name" -config /dev/null -out "$name.csr"
	quiet openssl x509 -req -in "$name.csr" -CA ca.pem -CAkey ca-key.pem -set_serial "0x$(openssl rand -hex 16)" \
		-days 365 -sha256 -extfile "$name.ext" -out "$name.pem"
	rm -f "$name.csr" "$name.ext"
	chmod 644 "$name.pem"
	echo "pki.sh: made $pki/$name.pem"
}

for host in "$@"; do
	if [[ $host =~ ^[0-9.]+$ || $host == *:* ]]; then
		sign "$host" "IP:$host" serverAuth
	else
		sign "$host" "DNS:$host" serverAuth
	fi
done
sign operator "" clientAuth
