package tokensim.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.utility.DockerImageName;

/** token-sim in a container: a token, a sale with it, the virtual clock, a scenario. */
@Testcontainers
class TokenSimTest {
  static final String START = "2030-01-01T00:00:00Z";
  static final String TOKENS = "application/vnd.service.tokens-v1.hal+json";
  static final String SALE_REQUEST = "application/vnd.service.payments-v5+json";
  static final String SALE_RESPONSE = "application/vnd.service.payments-v5.hal+json";
  static final String BASIC =
      "Basic " + Base64.getEncoder().encodeToString("merchant:secret".getBytes(StandardCharsets.UTF_8));

  /** One simulator for the class, from the image of token-sim's Dockerfile (docker build -t token-sim .). */
  @Container
  static final GenericContainer<?> SIM =
      new GenericContainer<>(DockerImageName.parse("token-sim"))
          .withExposedPorts(8080)
          .withEnv("TOKEN_SIM_FROZEN", "true")
          .withEnv("TOKEN_SIM_NOW", START)
          .withEnv("TOKEN_SIM_SEED", "java-example")
          .waitingFor(Wait.forHttp("/_sim/health").forStatusCode(200));

  static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  static final ObjectMapper JSON = new ObjectMapper();

  static final Map<String, Object> CARD =
      Map.of(
          "paymentInstrument",
          Map.of(
              "type", "card/front",
              "cardHolderName", "Ada Lovelace",
              "cardNumber", "4444333322221111",
              "cardExpiryDate", Map.of("month", 5, "year", 2035)),
          "merchant", Map.of("entity", "default"));

  static final Map<String, Object> REFUSE_LARGE_SALES =
      Map.of(
          "name", "refuse-large-sales",
          "rules",
          List.of(
              Map.of(
                  "id", "large-sale-refused",
                  "when", Map.of("operation", "sale", "amount", Map.of("min", 5000)),
                  "then", Map.of("outcome", Map.of("outcome", "refused", "refusalCode", "51")))));

  record Answer(int status, HttpHeaders headers, JsonNode json) {}

  static Answer send(String method, String url, Object body, Map<String, String> headers) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url));
    headers.forEach(request::header);
    request.method(
        method,
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
    HttpResponse<String> response = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    String text = response.body();
    return new Answer(response.statusCode(), response.headers(), text.isEmpty() ? JSON.missingNode() : JSON.readTree(text));
  }

  static String base() {
    return "http://" + SIM.getHost() + ":" + SIM.getMappedPort(8080);
  }

  /** The simulated API: a path of the simulator ("/tokens") or an href it answered, with Basic auth. */
  static Answer api(String method, String target, Object body, String contentType, String accept) throws Exception {
    Map<String, String> headers = new HashMap<>(Map.of("Authorization", BASIC, "Accept", accept));
    if (body != null) headers.put("Content-Type", contentType);
    return send(method, target.startsWith("http") ? target : base() + target, body, headers);
  }

  /** token-sim's own control API under /_sim: JSON, no credentials (none are set by default). */
  static Answer control(String method, String path, Object body) throws Exception {
    return send(method, base() + path, body, body == null ? Map.of() : Map.of("Content-Type", "application/json"));
  }

  static Answer createToken() throws Exception {
    Answer created = api("POST", "/tokens", CARD, TOKENS, TOKENS);
    assertEquals(201, created.status(), created.json().toString());
    return created;
  }

  static Answer sale(String tokenHref, int amount, String reference) throws Exception {
    Map<String, Object> body =
        Map.of(
            "transactionReference", reference,
            "merchant", Map.of("entity", "default"),
            "instruction",
            Map.of(
                "narrative", Map.of("line1", "Shop"),
                "value", Map.of("currency", "GBP", "amount", amount),
                "paymentInstrument", Map.of("type", "card/token", "href", tokenHref)));
    return api("POST", "/payments/sales/migrateCardOnFile", body, SALE_REQUEST, SALE_RESPONSE);
  }

  /** Each test starts clean: no tokens, payments or scenarios, the clock frozen at START. */
  @BeforeEach
  void cleanSimulator() throws Exception {
    assertEquals(204, control("POST", "/_sim/reset", null).status());
    assertEquals(204, control("DELETE", "/_sim/scenarios", null).status());
    assertEquals(200, control("PUT", "/_sim/clock", Map.of("now", START, "frozen", true)).status());
  }

  @Test
  void createAToken() throws Exception {
    Answer created = createToken();
    String href = created.json().at("/tokenPaymentInstrument/href").asText();
    assertEquals(href, created.headers().firstValue("Location").orElseThrow());
    assertEquals(TOKENS, created.headers().firstValue("Content-Type").orElseThrow());
    assertEquals("4444********1111", created.json().at("/paymentInstrument/cardNumber").asText());
    assertEquals("2030-01-08T00:00:00Z", created.json().at("/tokenExpiryDateTime").asText()); // 7 days
    assertEquals(href, created.json().at("/_links/tokens:token/href").asText());

    Answer read = api("GET", href, null, TOKENS, TOKENS);
    assertEquals(200, read.status());
    assertEquals(created.json().at("/tokenId").asText(), read.json().at("/tokenId").asText());
  }

  @Test
  void saleWithTheTokenSettlesADayLater() throws Exception {
    String href = createToken().json().at("/tokenPaymentInstrument/href").asText();
    Answer sold = sale(href, 1250, "order-1");
    assertEquals(201, sold.status(), sold.json().toString());
    assertEquals(SALE_RESPONSE, sold.headers().firstValue("Content-Type").orElseThrow());
    assertEquals("sentForSettlement", sold.json().at("/outcome").asText());
    assertTrue(sold.json().at("/issuer/authorizationCode").asText().matches("[0-9A-Z]{6}"));

    String events = sold.json().at("/_links/payments:events/href").asText();
    assertEquals("sentForSettlement", api("GET", events, null, null, SALE_RESPONSE).json().at("/lastEvent").asText());
    Answer advanced = control("POST", "/_sim/clock/advance", Map.of("by", "P1D"));
    assertEquals("2030-01-02T00:00:00Z", advanced.json().at("/now").asText());
    assertEquals("settled", api("GET", events, null, null, SALE_RESPONSE).json().at("/lastEvent").asText());
  }

  @Test
  void theTokenExpiresAfter7Days() throws Exception {
    String href = createToken().json().at("/tokenPaymentInstrument/href").asText();
    assertEquals(200, control("POST", "/_sim/clock/advance", Map.of("by", "P8D")).status());

    Answer read = api("GET", href, null, TOKENS, TOKENS);
    assertEquals(404, read.status());
    assertEquals("resourceNotFound", read.json().at("/errorName").asText());
    Answer sold = sale(href, 1250, "order-2");
    assertEquals(400, sold.status());
    assertEquals("bodyDoesNotMatchSchema", sold.json().at("/errorName").asText());
    assertEquals("fieldHasInvalidValue", sold.json().at("/validationErrors/0/errorName").asText());
    assertEquals("$.instruction.paymentInstrument.href", sold.json().at("/validationErrors/0/jsonPath").asText());
  }

  @Test
  void aScenarioRefusesLargeSales() throws Exception {
    Answer loaded = control("PUT", "/_sim/scenarios", REFUSE_LARGE_SALES);
    assertEquals(200, loaded.status(), loaded.json().toString());
    assertEquals("refuse-large-sales", loaded.json().at("/scenarios/0/name").asText());
    String href = createToken().json().at("/tokenPaymentInstrument/href").asText();

    Answer refused = sale(href, 6000, "order-3");
    assertEquals(201, refused.status());
    assertEquals("refused", refused.json().at("/outcome").asText());
    assertEquals("51", refused.json().at("/refusalCode").asText());
    assertEquals("LIMIT EXCEEDED", refused.json().at("/refusalDescription").asText());
    assertFalse(refused.json().at("/_links").has("payments:refund"));
    assertEquals("sentForSettlement", sale(href, 1250, "order-4").json().at("/outcome").asText());

    JsonNode journal = control("GET", "/_sim/requests?operation=sale", null).json();
    assertEquals("large-sale-refused", journal.at("/requests/0/rule").asText());
    assertTrue(journal.at("/requests/1/rule").isNull());
  }
}
