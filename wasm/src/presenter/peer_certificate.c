#include "peer_certificate.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <freerdp/crypto/certificate.h>
#include <freerdp/settings.h>

static X509* self_signed(EVP_PKEY* key)
{
	X509* x509 = X509_new();
	if (!x509)
		return NULL;
	X509_NAME* name = X509_get_subject_name(x509);
	/* a day is enough: the certificate lives as long as one presenter page */
	if (!X509_set_version(x509, 2) || !ASN1_INTEGER_set(X509_get_serialNumber(x509), 1) ||
	    !X509_gmtime_adj(X509_getm_notBefore(x509), -60) ||
	    !X509_gmtime_adj(X509_getm_notAfter(x509), 24L * 60L * 60L) ||
	    !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
	                                (const unsigned char*)"lanterna-presenter", -1, -1, 0) ||
	    !X509_set_issuer_name(x509, name) || !X509_set_pubkey(x509, key) ||
	    (X509_sign(x509, key, EVP_sha256()) <= 0))
	{
		X509_free(x509);
		return NULL;
	}
	return x509;
}

BOOL lp_peer_certificate_install(LpContext* lp)
{
	BOOL ok = FALSE;
	EVP_PKEY* key = EVP_EC_gen("P-256");
	X509* x509 = key ? self_signed(key) : NULL;
	unsigned char* der = NULL;
	const int derLength = x509 ? i2d_X509(x509, &der) : -1;
	rdpCertificate* cert =
	    (derLength > 0) ? freerdp_certificate_new_from_der(der, (size_t)derLength) : NULL;
	OPENSSL_free(der);
	if (!cert)
		goto out;
	const ASN1_BIT_STRING* bits = X509_get0_pubkey_bitstr(x509);
	if (!bits || (bits->length <= 0))
		goto out;
	lp->publicKey = malloc((size_t)bits->length);
	if (!lp->publicKey)
		goto out;
	memcpy(lp->publicKey, bits->data, (size_t)bits->length);
	lp->publicKeyLength = (size_t)bits->length;
	/* the settings own the certificate from here on */
	if (!freerdp_settings_set_pointer_len(lp->context.settings, FreeRDP_RdpServerCertificate, cert,
	                                      1))
		goto out;
	cert = NULL;
	ok = TRUE;
out:
	freerdp_certificate_free(cert);
	X509_free(x509);
	EVP_PKEY_free(key);
	return ok;
}
