// token-sim in a container: a token, a sale with it, the virtual clock, a scenario. Run: dotnet test
using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using DotNet.Testcontainers.Builders;
using DotNet.Testcontainers.Containers;
using Xunit;

namespace TokenSim.Example;

/// <summary>One simulator for the test class, from the image of token-sim's Dockerfile (docker build -t token-sim .).</summary>
public sealed class TokenSimContainer : IAsyncLifetime
{
    public const string Start = "2030-01-01T00:00:00Z";

    private readonly IContainer _container = new ContainerBuilder()
        .WithImage("token-sim")
        .WithPortBinding(8080, true)
        .WithEnvironment("TOKEN_SIM_FROZEN", "true")
        .WithEnvironment("TOKEN_SIM_NOW", Start)
        .WithEnvironment("TOKEN_SIM_SEED", "dotnet-example")
        .WithWaitStrategy(Wait.ForUnixContainer().UntilHttpRequestIsSucceeded(request => request.ForPath("/_sim/health").ForPort(8080)))
        .Build();

    public string BaseUrl => $"http://{_container.Hostname}:{_container.GetMappedPublicPort(8080)}";

    public Task InitializeAsync() => _container.StartAsync();

    public Task DisposeAsync() => _container.DisposeAsync().AsTask();
}

public sealed class TokenSimTest : IClassFixture<TokenSimContainer>, IAsyncLifetime
{
    private const string Tokens = "application/vnd.service.tokens-v1.hal+json";
    private const string SaleRequest = "application/vnd.service.payments-v5+json";
    private const string SaleResponse = "application/vnd.service.payments-v5.hal+json";
    private static readonly HttpClient Http = new();
    private static readonly string Credentials = Convert.ToBase64String(Encoding.UTF8.GetBytes("merchant:secret"));

    private static readonly object Card = new
    {
        paymentInstrument = new
        {
            type = "card/front",
            cardHolderName = "Ada Lovelace",
            cardNumber = "4444333322221111",
            cardExpiryDate = new { month = 5, year = 2035 },
        },
        merchant = new { entity = "default" },
    };

    private static readonly object RefuseLargeSales = new
    {
        name = "refuse-large-sales",
        rules = new[]
        {
            new
            {
                id = "large-sale-refused",
                when = new { operation = "sale", amount = new { min = 5000 } },
                then = new { outcome = new { outcome = "refused", refusalCode = "51" } },
            },
        },
    };

    private sealed record Answer(int Status, string? ContentType, string? Location, JsonNode? Json);

    private readonly string _base;

    public TokenSimTest(TokenSimContainer sim) => _base = sim.BaseUrl;

    private static async Task<Answer> Send(HttpMethod method, string url, object? body, string contentType, Action<HttpRequestHeaders> headers)
    {
        using var request = new HttpRequestMessage(method, url);
        headers(request.Headers);
        if (body is not null)
        {
            request.Content = new StringContent(JsonSerializer.Serialize(body), Encoding.UTF8, contentType);
        }
        using var response = await Http.SendAsync(request);
        var text = await response.Content.ReadAsStringAsync();
        return new Answer(
            (int)response.StatusCode,
            response.Content.Headers.ContentType?.MediaType,
            response.Headers.Location?.OriginalString,
            text.Length == 0 ? null : JsonNode.Parse(text));
    }

    /// <summary>The simulated API: a path of the simulator ("/tokens") or an href it answered, with Basic auth.</summary>
    private Task<Answer> Api(HttpMethod method, string target, object? body, string contentType, string accept) =>
        Send(method, target.StartsWith("http") ? target : _base + target, body, contentType, headers =>
        {
            headers.Authorization = new AuthenticationHeaderValue("Basic", Credentials);
            headers.Accept.ParseAdd(accept);
        });

    /// <summary>token-sim's own control API under /_sim: JSON, no credentials (none are set by default).</summary>
    private Task<Answer> Control(HttpMethod method, string path, object? body = null) =>
        Send(method, _base + path, body, "application/json", _ => { });

    private static string Text(JsonNode? node) => node!.GetValue<string>();

    private async Task<JsonNode> CreateToken()
    {
        var created = await Api(HttpMethod.Post, "/tokens", Card, Tokens, Tokens);
        Assert.Equal(201, created.Status);
        return created.Json!;
    }

    private Task<Answer> Sale(string tokenHref, int amount, string reference) =>
        Api(HttpMethod.Post, "/payments/sales/migrateCardOnFile", new
        {
            transactionReference = reference,
            merchant = new { entity = "default" },
            instruction = new
            {
                narrative = new { line1 = "Shop" },
                value = new { currency = "GBP", amount },
                paymentInstrument = new { type = "card/token", href = tokenHref },
            },
        }, SaleRequest, SaleResponse);

    /// <summary>Each test starts clean: no tokens, payments or scenarios, the clock frozen at Start.</summary>
    public async Task InitializeAsync()
    {
        Assert.Equal(204, (await Control(HttpMethod.Post, "/_sim/reset")).Status);
        Assert.Equal(204, (await Control(HttpMethod.Delete, "/_sim/scenarios")).Status);
        Assert.Equal(200, (await Control(HttpMethod.Put, "/_sim/clock", new { now = TokenSimContainer.Start, frozen = true })).Status);
    }

    public Task DisposeAsync() => Task.CompletedTask;

    [Fact]
    public async Task CreateAToken()
    {
        var created = await Api(HttpMethod.Post, "/tokens", Card, Tokens, Tokens);
        Assert.Equal(201, created.Status);
        var token = created.Json!;
        var href = Text(token["tokenPaymentInstrument"]!["href"]);
        Assert.Equal(href, created.Location);
        Assert.Equal(Tokens, created.ContentType);
        Assert.Equal("4444********1111", Text(token["paymentInstrument"]!["cardNumber"]));
        Assert.Equal("2030-01-08T00:00:00Z", Text(token["tokenExpiryDateTime"])); // 7 days of virtual time
        Assert.Equal(href, Text(token["_links"]!["tokens:token"]!["href"]));

        var read = await Api(HttpMethod.Get, href, null, Tokens, Tokens);
        Assert.Equal(200, read.Status);
        Assert.Equal(Text(token["tokenId"]), Text(read.Json!["tokenId"]));
    }

    [Fact]
    public async Task SaleWithTheTokenSettlesADayLater()
    {
        var href = Text((await CreateToken())["tokenPaymentInstrument"]!["href"]);
        var sold = await Sale(href, 1250, "order-1");
        Assert.Equal(201, sold.Status);
        Assert.Equal(SaleResponse, sold.ContentType);
        var sale = sold.Json!;
        Assert.Equal("sentForSettlement", Text(sale["outcome"]));
        Assert.Matches("^[0-9A-Z]{6}$", Text(sale["issuer"]!["authorizationCode"]));

        var events = Text(sale["_links"]!["payments:events"]!["href"]);
        Assert.Equal("sentForSettlement", Text((await Api(HttpMethod.Get, events, null, SaleRequest, SaleResponse)).Json!["lastEvent"]));
        var advanced = await Control(HttpMethod.Post, "/_sim/clock/advance", new { by = "P1D" });
        Assert.Equal("2030-01-02T00:00:00Z", Text(advanced.Json!["now"]));
        Assert.Equal("settled", Text((await Api(HttpMethod.Get, events, null, SaleRequest, SaleResponse)).Json!["lastEvent"]));
    }

    [Fact]
    public async Task TheTokenExpiresAfter7Days()
    {
        var href = Text((await CreateToken())["tokenPaymentInstrument"]!["href"]);
        Assert.Equal(200, (await Control(HttpMethod.Post, "/_sim/clock/advance", new { by = "P8D" })).Status);

        var read = await Api(HttpMethod.Get, href, null, Tokens, Tokens);
        Assert.Equal(404, read.Status);
        Assert.Equal("resourceNotFound", Text(read.Json!["errorName"]));
        var sold = await Sale(href, 1250, "order-2");
        Assert.Equal(400, sold.Status);
        var error = sold.Json!;
        Assert.Equal("bodyDoesNotMatchSchema", Text(error["errorName"]));
        var item = Assert.Single(error["validationErrors"]!.AsArray())!;
        Assert.Equal("fieldHasInvalidValue", Text(item["errorName"]));
        Assert.Equal("$.instruction.paymentInstrument.href", Text(item["jsonPath"]));
    }

    [Fact]
    public async Task AScenarioRefusesLargeSales()
    {
        var loaded = await Control(HttpMethod.Put, "/_sim/scenarios", RefuseLargeSales);
        Assert.Equal(200, loaded.Status);
        Assert.Equal("refuse-large-sales", Text(loaded.Json!["scenarios"]![0]!["name"]));
        var href = Text((await CreateToken())["tokenPaymentInstrument"]!["href"]);

        var refused = await Sale(href, 6000, "order-3");
        Assert.Equal(201, refused.Status);
        var sale = refused.Json!;
        Assert.Equal("refused", Text(sale["outcome"]));
        Assert.Equal("51", Text(sale["refusalCode"]));
        Assert.Equal("LIMIT EXCEEDED", Text(sale["refusalDescription"]));
        Assert.Null(sale["_links"]!["payments:refund"]);
        Assert.Equal("sentForSettlement", Text((await Sale(href, 1250, "order-4")).Json!["outcome"]));

        var journal = (await Control(HttpMethod.Get, "/_sim/requests?operation=sale")).Json!;
        Assert.Equal("large-sale-refused", Text(journal["requests"]![0]!["rule"]));
        Assert.Null(journal["requests"]![1]!["rule"]);
    }
}
