"""token-sim from Python: a token, a sale with it, the virtual clock, a scenario. Run: python3 -m unittest -v"""
import unittest

from token_sim_fixture import SALE_REQUEST, SALE_RESPONSE, TOKENS, TokenSimTestCase

CARD = {
    "paymentInstrument": {
        "type": "card/front",
        "cardHolderName": "Ada Lovelace",
        "cardNumber": "4444333322221111",
        "cardExpiryDate": {"month": 5, "year": 2035},
    },
    "merchant": {"entity": "default"},
}

REFUSE_LARGE_SALES = {
    "name": "refuse-large-sales",
    "rules": [{
        "id": "large-sale-refused",
        "when": {"operation": "sale", "amount": {"min": 5000}},
        "then": {"outcome": {"outcome": "refused", "refusalCode": "51"}},
    }],
}


class TokenSimExample(TokenSimTestCase):
    def create_token(self):
        created = self.api("POST", "/tokens", CARD)
        self.assertEqual(created.status, 201, created.json)
        return created

    def sale(self, token_href, amount, reference):
        return self.api("POST", "/payments/sales/migrateCardOnFile", {
            "transactionReference": reference,
            "merchant": {"entity": "default"},
            "instruction": {
                "narrative": {"line1": "Shop"},
                "value": {"currency": "GBP", "amount": amount},
                "paymentInstrument": {"type": "card/token", "href": token_href},
            },
        }, content_type=SALE_REQUEST, accept=SALE_RESPONSE)

    def test_1_create_a_token(self):
        created = self.create_token()
        token = created.json
        href = token["tokenPaymentInstrument"]["href"]
        self.assertEqual(created.headers["Location"], href)
        self.assertEqual(created.headers["Content-Type"], TOKENS)
        self.assertEqual(token["paymentInstrument"]["cardNumber"], "4444********1111")
        self.assertEqual(token["tokenExpiryDateTime"], "2030-01-08T00:00:00Z")  # 7 days of virtual time
        self.assertEqual(token["_links"]["tokens:token"]["href"], href)

        read = self.api("GET", href)
        self.assertEqual(read.status, 200)
        self.assertEqual(read.json["tokenId"], token["tokenId"])

    def test_2_sale_with_the_token_settles_a_day_later(self):
        href = self.create_token().json["tokenPaymentInstrument"]["href"]
        sold = self.sale(href, 1250, "order-1")
        self.assertEqual(sold.status, 201, sold.json)
        self.assertEqual(sold.headers["Content-Type"], SALE_RESPONSE)
        self.assertEqual(sold.json["outcome"], "sentForSettlement")
        self.assertRegex(sold.json["issuer"]["authorizationCode"], r"^[0-9A-Z]{6}$")

        events = sold.json["_links"]["payments:events"]["href"]
        self.assertEqual(self.api("GET", events, accept=SALE_RESPONSE).json["lastEvent"], "sentForSettlement")
        advanced = self.control("POST", "/_sim/clock/advance", {"by": "P1D"})
        self.assertEqual(advanced.json, {"now": "2030-01-02T00:00:00Z", "frozen": True})
        self.assertEqual(self.api("GET", events, accept=SALE_RESPONSE).json["lastEvent"], "settled")

    def test_3_the_token_expires_after_7_days(self):
        href = self.create_token().json["tokenPaymentInstrument"]["href"]
        self.assertEqual(self.control("POST", "/_sim/clock/advance", {"by": "P8D"}).status, 200)

        read = self.api("GET", href)
        self.assertEqual(read.status, 404)
        self.assertEqual(read.json["errorName"], "resourceNotFound")
        sold = self.sale(href, 1250, "order-2")
        self.assertEqual(sold.status, 400)
        self.assertEqual(sold.json["errorName"], "bodyDoesNotMatchSchema")
        self.assertEqual([(e["errorName"], e["jsonPath"]) for e in sold.json["validationErrors"]],
                         [("fieldHasInvalidValue", "$.instruction.paymentInstrument.href")])

    def test_4_a_scenario_refuses_large_sales(self):
        loaded = self.control("PUT", "/_sim/scenarios", REFUSE_LARGE_SALES)
        self.assertEqual(loaded.status, 200, loaded.json)
        self.assertEqual([s["name"] for s in loaded.json["scenarios"]], ["refuse-large-sales"])
        href = self.create_token().json["tokenPaymentInstrument"]["href"]

        refused = self.sale(href, 6000, "order-3")
        self.assertEqual(refused.status, 201)
        self.assertEqual(refused.json["outcome"], "refused")
        self.assertEqual((refused.json["refusalCode"], refused.json["refusalDescription"]), ("51", "LIMIT EXCEEDED"))
        self.assertNotIn("payments:refund", refused.json["_links"])
        self.assertEqual(self.sale(href, 1250, "order-4").json["outcome"], "sentForSettlement")

        journal = self.control("GET", "/_sim/requests?operation=sale").json
        self.assertEqual([r["rule"] for r in journal["requests"]], ["large-sale-refused", None])


if __name__ == "__main__":
    unittest.main()
