import { importPrivateKey } from '#shared/protocol/pem';

/**
 * Made once with Python 3 (`cryptography` 48) exactly as launchkey.py 1.2 made its credentials: `str(dict)` of the
 * secret and a cached ping time (so with microseconds), RSA-OAEP SHA-1, `base64.encodebytes` (= Python 2's
 * `str.encode('base64')`, 76-column lines), and a PKCS#1 v1.5 SHA-256 signature over the raw ciphertext. The one key
 * plays both the API and the Service. Its `auth` is a v1 auth package wrapped at 64 columns with CRLF, as the v1 API
 * served it.
 */
export const pythonVector = {
  privatePem: `-----BEGIN PRIVATE KEY-----
MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQCwGaEWUBzcz1Iv
jdRuk/JI8xKO3r2UKzpF8y7SyDGhXaIGwfHd0dxlKZ9/4N+RI8XwO29EaIa/xE3r
42iUBwW8bY8cETdGdFRSTrpByylgTYkrZFOORVQhm1SOJXEOYc0gvXSbvvpkL572
g8RIQFVaWZ4Q3xfoFJWVrgNRa6Cy88YxL3A3kWTvmSY5dNDqWBPffE50pv0MmgGf
aJboohAsnJWqESNS7ruKkl11jyXrwwVbjLBgfQu/iQR341cigbNKDeuEZQ8BjpiX
ialKOQOMno08RHA3aNvuuJJoLo+pG3l5TlxYwz+psZi5Yic8Yz36zBMlhm33wG14
c2FRMtbJAgMBAAECggEABUuJlw5eBjTk4STGadpglnLz1ua5rcl5XUsWC4tIR44O
/8PRji+8ppbdNeiNsGNYyB1xZHQw9ELNBc/Ds3FdA2QKW15LjcthROXn62+8ocNG
SAJVqz+u0bsS8s2lAmxMaufN25tr4Ge4kIVrxheXhjnCay1zt/j04OUazAlZcds3
3T/q+I/vImeFqZ+h4jJgNi8hRrMxGoxLPRnxZVAmGuPiJrCdqCQ7ZVSF7RJn+d6+
A1CWyLp8L9oA6gTcqjMFCCTOaX6vBiKsDTIkM/3AlLa+5w0wY+t7tIr0r2EcEMRV
TeBUSVLYKAK0EB2OkkvPK0xHjPhB7lq9XoU/gnIRdQKBgQDWWXlMUqPBomqEMQHz
B4T0Jbk2HWVOfQLf0PS8Nhyz1Ff7ILFW+1incRjrbHiVfKiorw7NDIKXU19J0lUR
iOxTIj7tACXwdRIPTF1vBWY3GnDl7Ps5M2upMZQixlp3Jh75Wf1XhBWALo9/5LiL
1jsuJZasgHQec//hUWpw3RR6vwKBgQDSUX27Ep3pqybHFx28auJmdCNZrngWayNV
EcYtrSZeUHmTUS34xtr2+opaNfEXjl6vB3RJrn2LbLxgJhDEq2wPbzO0tvoR5KF1
VKg2qoXEC5XQILBA+n8ALLNpORiUC7q7IEYB41DGNANMgZ8mp8Ns4t5oOSrgXMUh
VTqCRyw4dwKBgBm69deWl/e3gmfJ5j0BKxGPsbLwRmfsk7rAP5CUQk/H7qPDoeYa
F+NJrT8db0AqjahqEzHEDa0Sof6fk/yd3hiApOMYQHWj5/4UIachE8sLjn/bObD9
HjBaNjkSbGufFNrD1ah6v4X6kNk+YHTQy5vXgUXFyaqaLB4lAsz3jOzLAoGBAJ6N
/uqMY24osGhBPhKwxZOVlJzkkfXcuVtFthDzS0ypAK6V8cFuMN8nDCxsJCCtHSZ4
yStPF6iHxg/6QoPx89pC7Ekd9LKOmUY6F0J3FbcxQLUSH64s6pe4G12FRMk/enve
HckIlPmHdsEzq0baDNNGyYLrLi7M4XR6q0xR2b2LAoGAYu4izbxO6wyvpp0tLD5G
GL/86g/bOeQCrNbzjuOykOU1oWR5YxLXecKJ5R/x/ge93xsDN4ywddRAJveCSqGi
lE/MHwgd2o1qkhRXLyNWABysC8RgyA1gashYFJCqgSrrGF80jIcrPNPVMZwMHvKU
zkor+ca3g+j83NFhfp4SoJU=
-----END PRIVATE KEY-----
`,
  blob: `{'secret': "s3cr3t/key+with'quote", 'stamped': '2013-11-10 03:57:18.250000'}`,
  secretKey:
    'MH8wbzGTjWk9N4HgEeXVQiIhpC/FLltHASbG2rXDVEtmcfRUAf5qIjaKoC539sm6At2TwAjyQxkJ\n' +
    'T3QU16or4GqRrK7j0kWIE6H4js+u5bh880Ug75QOGHVkSC1g3RzFKKkKfR2zAR8PHTQuy2Z4QCVb\n' +
    'MgRlrhUzvVKr1nxMAg8NAEcdBAUsI2MmR6hLJtYPlSLuPjOVycrSUENI2XpxLPe53p7ZbPzIz/+j\n' +
    'WOmSkix+4T/6HwrN8Bmt2eTDxisoDLeFUarE6ekhhbdULa6AfzKgr/T4wD4TlEfwA7OBWvD1QY/d\n' +
    '6Au6GyNtbJxzK8iHQAbGszGOIvbL4iTRe72B3A==\n',
  signature:
    'LkD2F3kkEAorNuIDov2SM3GBIY3C3OmXIq+T0T036aQ7iRwkk1ScM6a/HcbYNqydYR6VWl4zvb9uLJeAFWeOTxltwznM8xcDguFf97BaIspyNfx' +
    'NES1XIfyL8ac3SHyHEbiw5ZvXtVQecHwv/5VCklIOH5iHuursBtBtmC8asiQOGVGHgaXf2SfrXv3ZNeRtTqSaiwt5RNX+eFA+Vy8bkkD4mFqmxX' +
    'v7H0JKXof6zhyLr6JIKZQPqpH89IbdOGiek+5lFpis8ecQZAmLDR3fIlsgy4SAF95/9B+xoQA1KfkrbJ7d4MTSZ/imuamRsxoVZZno3ZDBJncME' +
    'zjaAmumiA==',
  auth:
    'MHPkGqpp3uQdGLxigTIp6AQyKUuV/8Y8T7vqHZgIIov6XYCBTfguer+wyDjQ6Dck\r\n' +
    'yB09U/enEShNYaJhWTaK0xoMN8Xmg2YqJz9gj2wT4IgW/rJeDsvXDtJqZBDCCN6O\r\n' +
    'KK/pnAHoRg6/kMvb92CU212wHK/vXv9ZPHLuiP9QVsZn9UtQCf61HcUPU7xronMJ\r\n' +
    'QTdz4E7z6rvvjtXexWh4xoIaV0nKqadwYGLNwwPKlHSWHN6IlWCGCgnT+nseR+g0\r\n' +
    'awLjjfTRUQEOJbXI+BqXUcp8Z0W3gLA1KY/R1SBwyhOdmz3cCU/lLohQUzpSEQNC\r\n' +
    'Ax4lsa1+iojobK6vtoW5KA==',
};

/** The vector's key, which plays both the API and the Service. */
export const pythonKey = importPrivateKey(pythonVector.privatePem);
